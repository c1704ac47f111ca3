import ArgumentParser
import PushKitFreeCore

/// An option group that sets part of the shared configuration's flags.
///
/// The shared settings are split into small groups so each tool offers only the flags that mean
/// something to it (`register-apns --help` does not list `--key-path`); tools that need them all
/// use `SharedOptions`.
package protocol ConfigurationOptionGroup: ParsableArguments {
    /// Copies the flags the user gave into `flags`.
    func apply(to flags: inout ConfigurationFlags)
}

extension ConfigurationFlags {
    /// The flags set by `groups`.
    package init(_ groups: any ConfigurationOptionGroup...) {
        self.init()
        for group in groups { group.apply(to: &self) }
    }
}

/// `--config`.
package struct ConfigFileOption: ConfigurationOptionGroup {
    /// `--config`: the config file; `nil` for `PUSHKIT_CONFIG`, else `config.json` in the XDG config directory.
    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (JSON).", valueName: "file"))
    package var configPath: String?

    /// Every option at its default; argument parser sets the ones given.
    package init() {}
    /// Sets `configPath`.
    package func apply(to flags: inout ConfigurationFlags) { flags.configPath = configPath }
}

/// `--state-file`: the devices file.
package struct StateFileOption: ConfigurationOptionGroup {
    /// `--state-file`: the devices file; `nil` leaves it to `APNS_STATE_FILE`, the config file or the default.
    @Option(name: .customLong("state-file"), help: ArgumentHelp("Devices file (JSON).", valueName: "file"))
    package var stateFile: String?

    /// Every option at its default; argument parser sets the ones given.
    package init() {}
    /// Sets `stateFile`.
    package func apply(to flags: inout ConfigurationFlags) { flags.stateFile = stateFile }
}

/// The provider identity: key file, key id, team id and topic.
package struct ProviderOptions: ConfigurationOptionGroup {
    /// `--key-path`: the APNs auth key (.p8 file); `nil` leaves it to `APNS_KEY_PATH` or the config file.
    @Option(name: .customLong("key-path"), help: ArgumentHelp("APNs auth key, the .p8 file.", valueName: "file"))
    package var keyPath: String?

    /// `--key-id`: the auth key's 10-character id; `nil` leaves it to `APNS_KEY_ID` or the config file.
    @Option(name: .customLong("key-id"), help: ArgumentHelp("10-character key id.", valueName: "id"))
    package var keyID: String?

    /// `--team-id`: the 10-character team id; `nil` leaves it to `APNS_TEAM_ID` or the config file.
    @Option(name: .customLong("team-id"), help: ArgumentHelp("10-character team id.", valueName: "id"))
    package var teamID: String?

    /// `--topic`: the app's bundle id; `nil` leaves it to `APNS_TOPIC`, `APNS_BUNDLE_ID` or the config file.
    @Option(help: ArgumentHelp("App bundle id (the APNs topic).", valueName: "bundle-id"))
    package var topic: String?

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Sets the key path, key id, team id and topic.
    package func apply(to flags: inout ConfigurationFlags) {
        flags.keyPath = keyPath
        flags.keyID = keyID
        flags.teamID = teamID
        flags.topic = topic
    }
}

/// `--environment production|sandbox`, `--sandbox`, `--production` (one of them at most).
package struct EnvironmentOptions: ConfigurationOptionGroup {
    /// `--environment`: `production` or `sandbox` (also `prod`, `development`, `dev`).
    @Option(help: ArgumentHelp("APNs environment.", valueName: "env"))
    package var environment: APNsEnvironment?

    /// `--sandbox`: the same as `--environment sandbox`.
    @Flag(help: "Use the sandbox (development) environment.")
    package var sandbox = false

    /// `--production`: the same as `--environment production`.
    @Flag(help: "Use the production environment.")
    package var production = false

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Rejects more than one of `--environment`, `--sandbox` and `--production`.
    package func validate() throws {
        let chosen = [
            environment != nil ? "--environment" : nil, sandbox ? "--sandbox" : nil, production ? "--production" : nil,
        ].compactMap { $0 }
        if chosen.count > 1 {
            throw ValidationError("\(chosen.joined(separator: " and ")) cannot be used together")
        }
    }

    /// The environment chosen on the command line, if any.
    package var chosen: APNsEnvironment? {
        if let environment { return environment }
        if sandbox { return .sandbox }
        if production { return .production }
        return nil
    }

    /// Sets the environment to `chosen`, and the flag to name in messages about it.
    package func apply(to flags: inout ConfigurationFlags) {
        flags.environment = chosen
        flags.environmentFlag = sandbox ? "--sandbox" : production ? "--production" : "--environment"
    }
}

/// Where APNs is and how to reach it: `--apns-url`, `--cacert` and `--proxy`.
package struct ConnectionOptions: ConfigurationOptionGroup {
    /// `--apns-url`: a base URL used instead of the chosen environment's APNs host, e.g. the emulator's.
    @Option(
        name: .customLong("apns-url"),
        help: ArgumentHelp("Base URL replacing the chosen environment's APNs host.", valueName: "url"))
    package var apnsURL: String?

    /// `--cacert`: an extra PEM CA bundle to trust; `nil` leaves it to `APNS_CA_FILE` or the config file.
    @Option(help: ArgumentHelp("Extra CA bundle (PEM) to trust, e.g. the emulator's.", valueName: "file"))
    package var cacert: String?

    /// `--proxy`: the proxy URL for APNs; `nil` leaves it to the config file, then the proxy variables.
    @Option(
        help: ArgumentHelp(
            "Proxy for APNs: an http://, https://, socks5h://, socks5://, socks4a:// or socks4:// URL. Default: https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY; NO_PROXY exempts hosts.",
            valueName: "url"))
    package var proxy: String?

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Sets the APNs URL, CA file and proxy.
    package func apply(to flags: inout ConfigurationFlags) {
        flags.apnsURL = apnsURL
        flags.caFile = cacert
        flags.proxy = proxy
    }
}

/// Every shared setting, for the tools that use them all (`send-push`, `apns-jwt check`).
package struct SharedOptions: ConfigurationOptionGroup {
    /// `--config`.
    @OptionGroup package var file: ConfigFileOption
    /// `--key-path`, `--key-id`, `--team-id`, `--topic`.
    @OptionGroup package var provider: ProviderOptions
    /// `--environment`, `--sandbox`, `--production`.
    @OptionGroup package var environment: EnvironmentOptions
    /// `--apns-url`, `--cacert`, `--proxy`.
    @OptionGroup package var connection: ConnectionOptions
    /// `--state-file`.
    @OptionGroup package var state: StateFileOption

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Applies each group in turn.
    package func apply(to flags: inout ConfigurationFlags) {
        for group in [file, provider, environment, connection, state] as [any ConfigurationOptionGroup] {
            group.apply(to: &flags)
        }
    }

    /// The options as the core's `ConfigurationFlags`.
    package var flags: ConfigurationFlags { ConfigurationFlags(self) }
}

/// `--endpoint` and `--secret-file`: how the tools that ask questions reach `register-apns serve`.
package struct EndpointOptions: ConfigurationOptionGroup {
    /// `--endpoint`: serve's base URL; `nil` leaves it to `PUSHKIT_ENDPOINT` or the config's `endpoint`.
    @Option(
        help: ArgumentHelp(
            "register-apns serve's URL, e.g. http://127.0.0.1:8100. Default: PUSHKIT_ENDPOINT, the config's endpoint.",
            valueName: "url"))
    package var endpoint: String?

    /// `--secret-file`: the file holding serve's secret; `nil` leaves it to
    /// `PUSHKIT_ENDPOINT_SECRET_FILE` or the config's `endpoint_secret_file`.
    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp(
            "File holding serve's secret (chmod 600). Default: PUSHKIT_ENDPOINT_SECRET_FILE, the config's endpoint_secret_file.",
            valueName: "file"))
    package var secretFile: String?

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Sets the endpoint and its secret file.
    package func apply(to flags: inout ConfigurationFlags) {
        flags.endpoint = endpoint
        flags.endpointSecretFile = secretFile
    }
}
