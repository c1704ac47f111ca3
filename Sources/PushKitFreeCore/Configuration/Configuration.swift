#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeTimeZones

/// Where a replaced design keeps its devices when its config file names no state file: the config
/// file's path in; the state file, with the rule that derived it, out (`nil`: no such design). The
/// registry module's compatibility adapters supply it (`SvenFiles.stateFile(besideConfig:)`).
package typealias StateFileBesideConfig = (_ configPath: String) -> Setting<String>?

/// The settings every tool shares, resolved with the precedence
/// **flag > environment variable > config file > default**, each remembering its source.
///
/// Resolution is pure: it takes the flags, a copy of the environment and the parsed config file, so
/// tests can drive every row of the precedence table without touching the process environment.
package struct Configuration: Sendable {
    /// The config file that was read (or would have been, when it does not exist).
    package let file: ConfigurationFile
    /// Where the config file's path came from.
    package let fileSource: SettingSource

    /// The `.p8` provider key (`--key-path`, `APNS_KEY_PATH`, `key_path`), `~` expanded; `nil` when unset.
    package let keyPath: Setting<String>?
    /// The key id (`--key-id`, `APNS_KEY_ID`, `key_id`), unchecked (see `ProviderCredentials.identifiers`).
    package let keyID: Setting<String>?
    /// The team id (`--team-id`, `APNS_TEAM_ID`, `team_id`), unchecked (see `ProviderCredentials.identifiers`).
    package let teamID: Setting<String>?
    /// The app's bundle id (`--topic`, `APNS_TOPIC` or `APNS_BUNDLE_ID`, `bundle_id` or `topic`); `nil` when unset.
    package let topic: Setting<String>?
    /// Production or sandbox (`--environment`, `--sandbox`, `--production`, `APNS_ENVIRONMENT`, `APNS_SANDBOX`,
    /// `environment`, `use_sandbox`); production by default.
    package let environment: Setting<APNsEnvironment>
    /// The push API's base URL in production (`APNS_PRODUCTION_URL`, `production_url`).
    package let productionURL: Setting<String>
    /// The push API's base URL in the sandbox (`APNS_SANDBOX_URL`, `sandbox_url`).
    package let sandboxURL: Setting<String>
    /// `--apns-url`, which replaces the base URL of whichever environment is used.
    package let urlOverride: Setting<String>?
    /// The channel management API's base URL in production (`APNS_PRODUCTION_MANAGE_URL`,
    /// `production_manage_url`).
    package let productionManagementURL: Setting<String>
    /// The channel management API's base URL in the sandbox (`APNS_SANDBOX_MANAGE_URL`,
    /// `sandbox_manage_url`).
    package let sandboxManagementURL: Setting<String>
    /// `--manage-url`, which replaces the management URL of whichever environment is used.
    package let managementURLOverride: Setting<String>?
    /// A CA bundle to trust besides the system's (`--cacert`, `APNS_CA_FILE`, `ca_file`), `~` expanded.
    package let caFile: Setting<String>?
    /// `--proxy` or the config file's `proxy`: the proxy for every APNs connection. `nil` leaves the
    /// choice to libcurl's environment variables (see `ProxyResolution`).
    package let proxy: Setting<String>?
    /// The proxy environment variables libcurl will read (`ProxyResolution.environmentVariables`).
    package let proxyEnvironment: [String: String]
    /// Where the tools keep their state (`PUSHKIT_STATE_DIR`, `state_dir`), else the XDG state directory.
    package let stateDirectory: Setting<String>
    /// The device registry, a file or a PostgreSQL URL (`--state-file`, `APNS_STATE_FILE`, `state_file`); else
    /// what `stateFileBesideConfig` derives from an existing config file's path (a replaced design's
    /// token map), else `devices.json` in the state directory.
    package let stateFile: Setting<String>
    /// The home directory (`HOME`), for what other designs keep under it.
    package let homeDirectory: String
    /// The registry's journal and retry settings (`PUSHKIT_REGISTRY_*`).
    package let registryTuning: RegistryTuning
    /// The tz database and the system's zone (`TZDIR`, `TZ`), for quiet hours' zones.
    package let timeZones: TimeZoneDatabase
    /// Whether sends are encrypted unless they say, and the placeholder they show in clear
    /// (`encrypt`, `placeholder_title`, `placeholder_body`).
    package let encryption: EncryptionDefaults
    /// The Firebase service account JSON for sending through FCM (`FCM_SERVICE_ACCOUNT`,
    /// `fcm_service_account`), `~` expanded and made absolute like the key path; `nil` when unset.
    package let fcmServiceAccount: Setting<String>?
    /// The FCM send API's base URL (`FCM_URL`, `fcm_url`), `https://fcm.googleapis.com` by default.
    package let fcmURL: Setting<String>
    /// The address phones reach `register-apns serve` at from outside (`--public-url`,
    /// `PUSHKIT_PUBLIC_URL`, `public_url`), for the answer URL a question's push carries; `nil`: the
    /// asking request's own host.
    package let publicURL: Setting<String>?
    /// The base URL of `register-apns serve` that questions are asked of (`--endpoint`,
    /// `PUSHKIT_ENDPOINT`, `endpoint`), an http(s) URL; `nil` when unset.
    package let endpoint: Setting<String>?
    /// The file holding the secret `register-apns serve` expects (`--secret-file`,
    /// `PUSHKIT_ENDPOINT_SECRET_FILE`, `endpoint_secret_file`), `~` expanded and made absolute; `nil`
    /// when unset. Read by `EndpointSecret`.
    package let endpointSecretFile: Setting<String>?

    /// Warnings found while resolving (unknown config keys), one line each.
    package var warnings: [String] { file.warnings }

    /// The base URL for `environment`: `--apns-url` when given, else that environment's URL setting.
    package func baseURL(for environment: APNsEnvironment) -> Setting<String> {
        if let urlOverride { return urlOverride }
        return environment == .production ? productionURL : sandboxURL
    }

    /// The channel management base URL for `environment`: `--manage-url` when given, else that
    /// environment's setting.
    package func managementURL(for environment: APNsEnvironment) -> Setting<String> {
        if let managementURLOverride { return managementURLOverride }
        return environment == .production ? productionManagementURL : sandboxManagementURL
    }

    /// The state directory from the environment alone (`PUSHKIT_STATE_DIR`, else the XDG default),
    /// for reporting a configuration that could not be resolved (a broken config file).
    package static func stateDirectory(environment: [String: String]) -> String {
        environment.nonEmpty("PUSHKIT_STATE_DIR").map { XDGPaths(environment: environment).expandingTilde($0) }
            ?? XDGPaths(environment: environment).stateDirectory
    }

    /// Google's FCM send API, the default of `fcm_url`.
    package static let defaultFCMURL = "https://fcm.googleapis.com"

    /// Where the provider-token cache lives: `provider-tokens.json` in the state directory.
    package var tokenCachePath: String { stateDirectory.value + "/provider-tokens.json" }

    /// Loads the config file and resolves every setting.
    ///
    /// - Parameters:
    ///   - flags: what the command line set.
    ///   - environment: the process environment, read once where each program starts.
    ///   - stateFileBesideConfig: the state file a replaced design keeps beside its config file.
    package static func resolve(
        flags: ConfigurationFlags, environment: [String: String],
        stateFileBesideConfig: StateFileBesideConfig = { _ in nil }
    ) throws(ConfigurationError) -> Configuration {
        let location = configFileLocation(flags: flags, environment: environment)
        let file = try ConfigurationFile.load(
            path: location.value, required: location.source != .defaultValue,
            namedBy: location.source)
        return try Configuration(
            flags: flags, environment: environment, file: file, fileSource: location.source,
            stateFileBesideConfig: stateFileBesideConfig)
    }

    /// The system-wide config file, read when the user has none (a service user's commands then
    /// need no `PUSHKIT_CONFIG`). `PUSHKIT_SYSTEM_CONFIG` names another, or none when empty (a
    /// container's own, a test run that must not read the machine's).
    package static let systemConfigPath = "/etc/pushkit-free/config.json"

    /// Where the config file is: `--config`, else `PUSHKIT_CONFIG`, else the first that exists of
    /// `config.json` in the user's XDG config directory, `pushkit-free/config.json` in each of
    /// `XDG_CONFIG_DIRS` (`/etc/xdg` when unset), and `/etc/pushkit-free/config.json` (or
    /// `PUSHKIT_SYSTEM_CONFIG`); when none exists, the user's (which may then be missing).
    /// - Parameter exists: whether a file is there (tests give their own).
    package static func configFileLocation(
        flags: ConfigurationFlags, environment: [String: String],
        exists: (String) -> Bool = { PosixFile.entry(at: $0) == .other }
    ) -> Setting<String> {
        let paths = XDGPaths(environment: environment)
        if let path = flags.configPath { return Setting(paths.expandingTilde(path), from: .flag("--config")) }
        if let path = environment.nonEmpty("PUSHKIT_CONFIG") {
            return Setting(paths.expandingTilde(path), from: .environment("PUSHKIT_CONFIG"))
        }
        let user = paths.configDirectory + "/config.json"
        if exists(user) { return Setting(user, from: .defaultValue) }
        let directories = (environment.nonEmpty("XDG_CONFIG_DIRS") ?? "/etc/xdg").split(separator: ":")
            .filter { $0.hasPrefix("/") }
        for directory in directories where exists(directory + "/pushkit-free/config.json") {
            return Setting(
                directory + "/pushkit-free/config.json",
                from: .derived(rule: "the system's (XDG_CONFIG_DIRS; there is no \(user))"))
        }
        let system = environment["PUSHKIT_SYSTEM_CONFIG"].map { $0.isEmpty ? nil : paths.expandingTilde($0) }
        if let path = system ?? systemConfigPath, exists(path) {
            return Setting(path, from: .derived(rule: "the system's (there is no \(user))"))
        }
        return Setting(user, from: .defaultValue)
    }

    /// Resolves every setting from already-loaded inputs.
    ///
    /// Paths are made absolute as they are read: `~` expanded, a relative path in the config file
    /// joined to the file's directory, one from a flag or the environment to `workingDirectory`
    /// (the process's when `nil`). A background delivery runs from `/`, and a config file is read
    /// from wherever its caller happens to be, so neither may depend on the directory it was run in.
    /// A `state_file` that is a URL (`postgres://...`) is left as it is.
    package init(
        flags: ConfigurationFlags, environment variables: [String: String], file: ConfigurationFile,
        fileSource: SettingSource = .defaultValue, workingDirectory: String? = nil,
        stateFileBesideConfig: StateFileBesideConfig = { _ in nil }
    ) throws(ConfigurationError) {
        let environmentVariables = variables
        let paths = XDGPaths(environment: environmentVariables)
        registryTuning = RegistryTuning(environment: environmentVariables)
        timeZones = TimeZoneDatabase(environment: environmentVariables)
        self.file = file
        self.fileSource = fileSource
        homeDirectory = paths.home

        func pick(
            flag: String?, _ flagName: String, env names: [String], keys: [String]
        ) throws(ConfigurationError) -> Setting<String>? {
            if let flag, !flag.isEmpty { return Setting(flag, from: .flag(flagName)) }
            for name in names {
                if let value = environmentVariables.nonEmpty(name) { return Setting(value, from: .environment(name)) }
            }
            for key in keys {
                if let value = try file.string(key) {
                    return Setting(value, from: .configFile(key: key, path: file.path))
                }
            }
            return nil
        }
        let workingDirectory = workingDirectory ?? FileManager.default.currentDirectoryPath
        func expanded(_ setting: Setting<String>?) -> Setting<String>? {
            setting.map { setting in
                let path = paths.expandingTilde(setting.value)
                guard !path.hasPrefix("/"), !path.contains("://") else { return Setting(path, from: setting.source) }
                var base = workingDirectory
                if case .configFile(_, let filePath) = setting.source {
                    let fileDirectory = Self.directory(of: paths.expandingTilde(filePath))
                    base = fileDirectory.hasPrefix("/") ? fileDirectory : Self.joined(workingDirectory, fileDirectory)
                }
                return Setting(Self.joined(base, path), from: setting.source)
            }
        }

        keyPath = expanded(try pick(flag: flags.keyPath, "--key-path", env: ["APNS_KEY_PATH"], keys: ["key_path"]))
        keyID = try pick(flag: flags.keyID, "--key-id", env: ["APNS_KEY_ID"], keys: ["key_id"])
        teamID = try pick(flag: flags.teamID, "--team-id", env: ["APNS_TEAM_ID"], keys: ["team_id"])
        topic = try pick(
            flag: flags.topic, "--topic", env: ["APNS_TOPIC", "APNS_BUNDLE_ID"], keys: ["bundle_id", "topic"])
        environment = try Self.resolveEnvironment(flags: flags, environment: environmentVariables, file: file)
        productionURL =
            try pick(flag: nil, "", env: ["APNS_PRODUCTION_URL"], keys: ["production_url"])
            ?? Setting(APNsEnvironment.production.defaultBaseURL, from: .defaultValue)
        sandboxURL =
            try pick(flag: nil, "", env: ["APNS_SANDBOX_URL"], keys: ["sandbox_url"])
            ?? Setting(APNsEnvironment.sandbox.defaultBaseURL, from: .defaultValue)
        urlOverride = flags.apnsURL.map { Setting($0, from: .flag("--apns-url")) }
        productionManagementURL =
            try pick(flag: nil, "", env: ["APNS_PRODUCTION_MANAGE_URL"], keys: ["production_manage_url"])
            ?? Setting(APNsEnvironment.production.defaultManagementURL, from: .defaultValue)
        sandboxManagementURL =
            try pick(flag: nil, "", env: ["APNS_SANDBOX_MANAGE_URL"], keys: ["sandbox_manage_url"])
            ?? Setting(APNsEnvironment.sandbox.defaultManagementURL, from: .defaultValue)
        managementURLOverride = flags.manageURL.map { Setting($0, from: .flag("--manage-url")) }
        caFile = expanded(try pick(flag: flags.caFile, "--cacert", env: ["APNS_CA_FILE"], keys: ["ca_file"]))
        proxy = try pick(flag: flags.proxy, "--proxy", env: [], keys: ["proxy"])
        if let proxy { try ProxyAddress.validate(proxy) }
        proxyEnvironment = environmentVariables.filter { ProxyResolution.environmentVariables.contains($0.key) }
        stateDirectory =
            expanded(try pick(flag: nil, "", env: ["PUSHKIT_STATE_DIR"], keys: ["state_dir"]))
            ?? Setting(paths.stateDirectory, from: .defaultValue)
        stateFile =
            expanded(try pick(flag: flags.stateFile, "--state-file", env: ["APNS_STATE_FILE"], keys: ["state_file"]))
            ?? (file.exists ? stateFileBesideConfig(file.path) : nil)
            ?? Setting(stateDirectory.value + "/devices.json", from: .defaultValue)
        encryption = try EncryptionDefaults.configured(in: file)
        fcmServiceAccount = expanded(
            try pick(flag: nil, "", env: ["FCM_SERVICE_ACCOUNT"], keys: ["fcm_service_account"]))
        fcmURL =
            try pick(flag: nil, "", env: ["FCM_URL"], keys: ["fcm_url"])
            ?? Setting(Self.defaultFCMURL, from: .defaultValue)
        publicURL = try pick(flag: flags.publicURL, "--public-url", env: ["PUSHKIT_PUBLIC_URL"], keys: ["public_url"])
        endpoint = try pick(flag: flags.endpoint, "--endpoint", env: ["PUSHKIT_ENDPOINT"], keys: ["endpoint"])
        endpointSecretFile = expanded(
            try pick(
                flag: flags.endpointSecretFile, "--secret-file", env: ["PUSHKIT_ENDPOINT_SECRET_FILE"],
                keys: ["endpoint_secret_file"]))

        let managementURLs =
            [productionManagementURL, sandboxManagementURL] + (managementURLOverride.map { [$0] } ?? [])
        let sent: [Setting<String>] =
            [keyID, teamID, topic, proxy, urlOverride, endpoint].compactMap { $0 }
            + [productionURL, sandboxURL, fcmURL]
            + managementURLs
        for setting in sent where HeaderValue.hasControlCharacter(setting.value) {
            throw ConfigurationError("\(setting.source) \(HeaderValue.refusal)")
        }
        if let publicURL, HeaderValue.hasControlCharacter(publicURL.value) {
            throw ConfigurationError("\(publicURL.source) \(HeaderValue.refusal)")
        }
        let urls =
            [productionURL, sandboxURL, fcmURL] + [urlOverride, endpoint].compactMap { $0 } + managementURLs
            + (publicURL.map { [$0] } ?? [])
        for url in urls {
            guard url.value.hasPrefix("https://") || url.value.hasPrefix("http://") else {
                throw ConfigurationError("\(url.source) must be an http(s) URL, not \"\(url.value)\"")
            }
        }
    }

    /// The directory part of `path` (`.` when it has none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `relative` under `base`, without the `./` segments either may begin with.
    static func joined(_ base: String, _ relative: String) -> String {
        var relative = Substring(relative)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        if relative == "." { relative = "" }
        var base = Substring(base)
        if base == "." { return relative.isEmpty ? "." : String(relative) }
        while base.count > 1, base.hasSuffix("/") { base = base.dropLast() }
        if relative.isEmpty { return String(base) }
        return base == "/" ? "/" + relative : base + "/" + relative
    }

    private static func resolveEnvironment(
        flags: ConfigurationFlags, environment: [String: String], file: ConfigurationFile
    ) throws(ConfigurationError) -> Setting<APNsEnvironment> {
        if let value = flags.environment { return Setting(value, from: .flag(flags.environmentFlag)) }
        if let text = environment.nonEmpty("APNS_ENVIRONMENT") {
            guard let value = APNsEnvironment(userText: text) else {
                throw ConfigurationError("APNS_ENVIRONMENT must be production or sandbox, not \"\(text)\"")
            }
            return Setting(value, from: .environment("APNS_ENVIRONMENT"))
        }
        if let text = environment.nonEmpty("APNS_SANDBOX") {
            guard let sandbox = parseBool(text) else {
                throw ConfigurationError("APNS_SANDBOX must be true or false, not \"\(text)\"")
            }
            return Setting(sandbox ? .sandbox : .production, from: .environment("APNS_SANDBOX"))
        }
        if let text = try file.string("environment") {
            guard let value = APNsEnvironment(userText: text) else {
                throw ConfigurationError("environment in \(file.path) must be production or sandbox, not \"\(text)\"")
            }
            return Setting(value, from: .configFile(key: "environment", path: file.path))
        }
        if let sandbox = try file.bool("use_sandbox") {
            return Setting(sandbox ? .sandbox : .production, from: .configFile(key: "use_sandbox", path: file.path))
        }
        return Setting(.production, from: .defaultValue)
    }

    /// Parses the boolean spellings found in environment variables: true/false, 1/0, yes/no, on/off.
    package static func parseBool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }
}

extension Dictionary where Key == String, Value == String {
    /// The variable's value, treating an empty string as unset (as shells commonly do).
    func nonEmpty(_ name: String) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        return value
    }
}
