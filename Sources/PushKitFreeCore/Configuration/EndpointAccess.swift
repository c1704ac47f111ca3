#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a client reaches `register-apns serve`: its base URL (`endpoint`) and the secret it
/// presents, read from `endpoint_secret_file`. The secret is never part of a message.
package struct EndpointAccess: Sendable {
    /// The base URL, an http(s) URL without a trailing `/`.
    package let baseURL: String
    /// The secret, the file's text without its trailing line ends.
    package let secret: String
    /// Where the secret was read from (for messages: the file, never its content).
    package let secretFile: Setting<String>
    /// What the caller should print as warnings: a secret file readable by group or others.
    package let warnings: [String]

    /// The endpoint and the secret `configuration` names.
    /// - Throws: `ConfigurationError` (78) naming the setting that is missing, or the file that is
    ///   missing, unreadable or empty.
    package static func resolve(_ configuration: Configuration) throws(ConfigurationError) -> EndpointAccess {
        guard let endpoint = configuration.endpoint else {
            throw ConfigurationError(
                "no endpoint: set --endpoint, PUSHKIT_ENDPOINT or endpoint in \(configuration.file.path) to "
                    + "register-apns serve's URL (e.g. http://127.0.0.1:8100)")
        }
        guard let secretFile = configuration.endpointSecretFile else {
            throw ConfigurationError(
                "no endpoint secret: set --secret-file, PUSHKIT_ENDPOINT_SECRET_FILE or endpoint_secret_file in "
                    + "\(configuration.file.path) to the file holding serve's secret (its --secret-file)")
        }
        let (secret, warnings) = try readSecret(secretFile)
        var base = Substring(endpoint.value)
        while base.hasSuffix("/") { base = base.dropLast() }
        return EndpointAccess(baseURL: String(base), secret: secret, secretFile: secretFile, warnings: warnings)
    }

    /// Reads the secret at `file`: its text without trailing `\n` or `\r\n`, and warnings (a file
    /// readable by group or others).
    package static func readSecret(_ file: Setting<String>) throws(ConfigurationError) -> (String, [String]) {
        let path = file.value
        var warnings: [String] = []
        if let mode = PosixFile.permissionsOpenToOthers(of: path) {
            warnings.append(
                "the endpoint secret file \(path) (\(file.source)) is accessible by group or others "
                    + "(mode \(String(mode, radix: 8))); run chmod 600 \(path)")
        }
        let data: Data?
        do {
            data = try PosixFile.readRegularFile(path, limit: 4096)
        } catch {
            throw ConfigurationError("cannot read the endpoint secret file \(path) (\(file.source)): \(error.reason)")
        }
        guard let data else {
            throw ConfigurationError("the endpoint secret file \(path) (\(file.source)) does not exist")
        }
        var text = String(decoding: data, as: UTF8.self)
        // "\r\n" is one Character: compare scalars, so that a CRLF file is read as its secret.
        while let last = text.unicodeScalars.last, last == "\n" || last == "\r" { text.unicodeScalars.removeLast() }
        guard !text.trimmingWhitespace.isEmpty else {
            throw ConfigurationError("the endpoint secret file \(path) (\(file.source)) is empty")
        }
        guard !HeaderValue.hasControlCharacter(text) else {
            throw ConfigurationError(
                "the endpoint secret file \(path) (\(file.source)) holds a control character; it cannot be sent")
        }
        return (text, warnings)
    }
}
