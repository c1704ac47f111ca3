#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON config file (`config.json`), as read from disk.
///
/// It accepts unchanged the config that existing users already have:
/// `{"team_id", "key_id", "bundle_id", "key_path", "use_sandbox"}`. Keys this version does not know
/// are kept out of the settings and reported as warnings, never as errors.
package struct ConfigurationFile: Sendable {
    /// Every key the tools read from the file.
    package static let knownKeys: Set<String> = NotificationPolicy.configKeys.union(EncryptionDefaults.configKeys)
        .union([
            "team_id", "key_id", "bundle_id", "topic", "key_path", "use_sandbox", "environment",
            "production_url", "sandbox_url", "ca_file", "proxy", "state_file", "state_dir", "title", "profile",
            "production_manage_url", "sandbox_manage_url", "fcm_service_account", "fcm_url", "public_url",
            "endpoint", "endpoint_secret_file",
        ])

    /// The file's path.
    package let path: String
    /// Whether the file existed; a missing default config file is normal.
    package let exists: Bool
    /// The top-level members of the file.
    package let values: [String: JSONValue]

    /// Warnings about the file's content (unknown keys), one line each.
    package var warnings: [String] {
        values.keys.filter { !Self.knownKeys.contains($0) }.sorted().map { key in
            let meant = Suggestion.closest(to: key, among: Self.knownKeys.sorted()).map { "; did you mean \"\($0)\"?" }
            return "ignoring unknown key \"\(key)\" in \(path)\(meant ?? "")"
        }
    }

    /// A file from its parsed members; `exists: false` with no values stands for a missing file.
    package init(path: String, exists: Bool, values: [String: JSONValue]) {
        self.path = path
        self.exists = exists
        self.values = values
    }

    /// Parses the bytes of a config file.
    /// - Throws: `ConfigurationError` (exit 78) naming the file when it is not a JSON object.
    package init(path: String, contents: Data) throws(ConfigurationError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(contents)
        } catch {
            throw ConfigurationError("config file \(path) is not valid JSON: \(error.detail)")
        }
        guard let object = value.objectValue else {
            throw ConfigurationError("config file \(path) must hold a JSON object, not a \(value.typeName)")
        }
        self.init(path: path, exists: true, values: object)
    }

    /// Reads the config file at `path`. A missing file gives an empty configuration unless
    /// `required` (the user named it with `--config` or `PUSHKIT_CONFIG`), which is an error (exit 66).
    package static func load(
        path: String, required: Bool, namedBy source: SettingSource
    ) throws(ConfigurationError) -> ConfigurationFile {
        let data: Data?
        do {
            data = try PosixFile.readRegularFile(path, limit: 1 << 20)
        } catch {
            throw ConfigurationError(
                "cannot read config file \(path) (from \(source)): \(error.reason)", exitStatus: .noInput)
        }
        guard let data else {
            if required {
                throw ConfigurationError("config file \(path) (from \(source)) does not exist", exitStatus: .noInput)
            }
            return ConfigurationFile(path: path, exists: false, values: [:])
        }
        return try ConfigurationFile(path: path, contents: data)
    }

    /// The string at `key`, `nil` when absent or null or empty.
    /// - Throws: when the value has another type.
    package func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = values[key], value != .null else { return nil }
        guard let string = value.stringValue else {
            throw ConfigurationError("\(key) in \(path) must be a string, not a \(value.typeName)")
        }
        return string.isEmpty ? nil : string
    }

    /// The boolean at `key`; also accepts the strings "true"/"false" that hand-edited files contain.
    package func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = values[key], value != .null else { return nil }
        if let bool = value.boolValue { return bool }
        if let text = value.stringValue, let bool = Configuration.parseBool(text) { return bool }
        throw ConfigurationError("\(key) in \(path) must be true or false, not \(value.serializedString())")
    }
}
