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
    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (JSON).", valueName: "file"))
    package var configPath: String?

    package init() {}
    package func apply(to flags: inout ConfigurationFlags) { flags.configPath = configPath }
}

/// `--state-file`: the devices file.
package struct StateFileOption: ConfigurationOptionGroup {
    @Option(name: .customLong("state-file"), help: ArgumentHelp("Devices file (JSON).", valueName: "file"))
    package var stateFile: String?

    package init() {}
    package func apply(to flags: inout ConfigurationFlags) { flags.stateFile = stateFile }
}

/// The provider identity: key file, key id, team id and topic.
package struct ProviderOptions: ConfigurationOptionGroup {
    @Option(name: .customLong("key-path"), help: ArgumentHelp("APNs auth key, the .p8 file.", valueName: "file"))
    package var keyPath: String?

    @Option(name: .customLong("key-id"), help: ArgumentHelp("10-character key id.", valueName: "id"))
    package var keyID: String?

    @Option(name: .customLong("team-id"), help: ArgumentHelp("10-character team id.", valueName: "id"))
    package var teamID: String?

    @Option(help: ArgumentHelp("App bundle id (the APNs topic).", valueName: "bundle-id"))
    package var topic: String?

    package init() {}

    package func apply(to flags: inout ConfigurationFlags) {
        flags.keyPath = keyPath
        flags.keyID = keyID
        flags.teamID = teamID
        flags.topic = topic
    }
}

/// `--environment production|sandbox`, `--sandbox`, `--production` (one of them at most).
package struct EnvironmentOptions: ConfigurationOptionGroup {
    @Option(help: ArgumentHelp("APNs environment.", valueName: "env"))
    package var environment: APNsEnvironment?

    @Flag(help: "Use the sandbox (development) environment.")
    package var sandbox = false

    @Flag(help: "Use the production environment.")
    package var production = false

    package init() {}

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

    package func apply(to flags: inout ConfigurationFlags) {
        flags.environment = chosen
        flags.environmentFlag = sandbox ? "--sandbox" : production ? "--production" : "--environment"
    }
}

/// Where APNs is and how to reach it: `--apns-url`, `--cacert` and `--proxy`.
package struct ConnectionOptions: ConfigurationOptionGroup {
    @Option(
        name: .customLong("apns-url"),
        help: ArgumentHelp("Base URL replacing the chosen environment's APNs host.", valueName: "url"))
    package var apnsURL: String?

    @Option(help: ArgumentHelp("Extra CA bundle (PEM) to trust, e.g. the emulator's.", valueName: "file"))
    package var cacert: String?

    @Option(
        help: ArgumentHelp(
            "Proxy for APNs: an http://, https://, socks5h://, socks5://, socks4a:// or socks4:// URL. Default: https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY; NO_PROXY exempts hosts.",
            valueName: "url"))
    package var proxy: String?

    package init() {}

    package func apply(to flags: inout ConfigurationFlags) {
        flags.apnsURL = apnsURL
        flags.caFile = cacert
        flags.proxy = proxy
    }
}

/// Every shared setting, for the tools that use them all (`send-push`, `apns-jwt check`).
package struct SharedOptions: ConfigurationOptionGroup {
    @OptionGroup package var file: ConfigFileOption
    @OptionGroup package var provider: ProviderOptions
    @OptionGroup package var environment: EnvironmentOptions
    @OptionGroup package var connection: ConnectionOptions
    @OptionGroup package var state: StateFileOption

    package init() {}

    package func apply(to flags: inout ConfigurationFlags) {
        for group in [file, provider, environment, connection, state] as [any ConfigurationOptionGroup] {
            group.apply(to: &flags)
        }
    }

    /// The options as the core's `ConfigurationFlags`.
    package var flags: ConfigurationFlags { ConfigurationFlags(self) }
}
