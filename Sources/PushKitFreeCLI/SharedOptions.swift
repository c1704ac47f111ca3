import ArgumentParser
import PushKitFreeCore

/// An option group that sets part of the shared configuration's flags.
///
/// The shared settings are split into small groups so each tool offers only the flags that mean
/// something to it (`register-apns --help` does not list `--key-path`); tools that need them all
/// use `SharedOptions`.
public protocol ConfigurationOptionGroup: ParsableArguments {
    /// Copies the flags the user gave into `flags`.
    func apply(to flags: inout ConfigurationFlags)
}

extension ConfigurationFlags {
    /// The flags set by `groups`.
    public init(_ groups: any ConfigurationOptionGroup...) {
        self.init()
        for group in groups { group.apply(to: &self) }
    }
}

/// `--config`.
public struct ConfigFileOption: ConfigurationOptionGroup {
    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (JSON).", valueName: "file"))
    public var configPath: String?

    public init() {}
    public func apply(to flags: inout ConfigurationFlags) { flags.configPath = configPath }
}

/// `--state-file`: the devices file.
public struct StateFileOption: ConfigurationOptionGroup {
    @Option(name: .customLong("state-file"), help: ArgumentHelp("Devices file (JSON).", valueName: "file"))
    public var stateFile: String?

    public init() {}
    public func apply(to flags: inout ConfigurationFlags) { flags.stateFile = stateFile }
}

/// The provider identity: key file, key id, team id and topic.
public struct ProviderOptions: ConfigurationOptionGroup {
    @Option(name: .customLong("key-path"), help: ArgumentHelp("APNs auth key, the .p8 file.", valueName: "file"))
    public var keyPath: String?

    @Option(name: .customLong("key-id"), help: ArgumentHelp("10-character key id.", valueName: "id"))
    public var keyID: String?

    @Option(name: .customLong("team-id"), help: ArgumentHelp("10-character team id.", valueName: "id"))
    public var teamID: String?

    @Option(help: ArgumentHelp("App bundle id (the APNs topic).", valueName: "bundle-id"))
    public var topic: String?

    public init() {}

    public func apply(to flags: inout ConfigurationFlags) {
        flags.keyPath = keyPath
        flags.keyID = keyID
        flags.teamID = teamID
        flags.topic = topic
    }
}

/// `--environment production|sandbox`, `--sandbox`, `--production` (one of them at most).
public struct EnvironmentOptions: ConfigurationOptionGroup {
    @Option(help: ArgumentHelp("APNs environment.", valueName: "env"))
    public var environment: APNsEnvironment?

    @Flag(help: "Use the sandbox (development) environment.")
    public var sandbox = false

    @Flag(help: "Use the production environment.")
    public var production = false

    public init() {}

    public func validate() throws {
        let chosen = [
            environment != nil ? "--environment" : nil, sandbox ? "--sandbox" : nil, production ? "--production" : nil,
        ].compactMap { $0 }
        if chosen.count > 1 {
            throw ValidationError("\(chosen.joined(separator: " and ")) cannot be used together")
        }
    }

    /// The environment chosen on the command line, if any.
    public var chosen: APNsEnvironment? {
        if let environment { return environment }
        if sandbox { return .sandbox }
        if production { return .production }
        return nil
    }

    public func apply(to flags: inout ConfigurationFlags) {
        flags.environment = chosen
        flags.environmentFlag = sandbox ? "--sandbox" : production ? "--production" : "--environment"
    }
}

/// Where APNs is and how to reach it: `--apns-url`, `--cacert` and `--proxy`.
public struct ConnectionOptions: ConfigurationOptionGroup {
    @Option(
        name: .customLong("apns-url"),
        help: ArgumentHelp("Base URL replacing the chosen environment's APNs host.", valueName: "url"))
    public var apnsURL: String?

    @Option(help: ArgumentHelp("Extra CA bundle (PEM) to trust, e.g. the emulator's.", valueName: "file"))
    public var cacert: String?

    @Option(
        help: ArgumentHelp(
            "Proxy for APNs: an http://, https://, socks5h://, socks5://, socks4a:// or socks4:// URL. Default: https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY; NO_PROXY exempts hosts.",
            valueName: "url"))
    public var proxy: String?

    public init() {}

    public func apply(to flags: inout ConfigurationFlags) {
        flags.apnsURL = apnsURL
        flags.caFile = cacert
        flags.proxy = proxy
    }
}

/// Every shared setting, for the tools that use them all (`send-push`, `apns-jwt check`).
public struct SharedOptions: ConfigurationOptionGroup {
    @OptionGroup public var file: ConfigFileOption
    @OptionGroup public var provider: ProviderOptions
    @OptionGroup public var environment: EnvironmentOptions
    @OptionGroup public var connection: ConnectionOptions
    @OptionGroup public var state: StateFileOption

    public init() {}

    public func apply(to flags: inout ConfigurationFlags) {
        for group in [file, provider, environment, connection, state] as [any ConfigurationOptionGroup] {
            group.apply(to: &flags)
        }
    }

    /// The options as the core's `ConfigurationFlags`.
    public var flags: ConfigurationFlags { ConfigurationFlags(self) }
}
