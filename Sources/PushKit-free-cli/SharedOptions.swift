import ArgumentParser
import PushKitFreeCore

/// The options every tool shares (key, ids, topic, environment, URLs, files), declared once and
/// pulled into each command with `@OptionGroup`.
public struct SharedOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (JSON).", valueName: "file"))
    public var configPath: String?

    @Option(name: .customLong("key-path"), help: ArgumentHelp("APNs auth key, the .p8 file.", valueName: "file"))
    public var keyPath: String?

    @Option(name: .customLong("key-id"), help: ArgumentHelp("10-character key id.", valueName: "id"))
    public var keyID: String?

    @Option(name: .customLong("team-id"), help: ArgumentHelp("10-character team id.", valueName: "id"))
    public var teamID: String?

    @Option(help: ArgumentHelp("App bundle id (the APNs topic).", valueName: "bundle-id"))
    public var topic: String?

    @Option(help: ArgumentHelp("APNs environment: production or sandbox.", valueName: "env"))
    public var environment: String?

    @Flag(help: "Use the sandbox (development) environment.")
    public var sandbox = false

    @Flag(help: "Use the production environment.")
    public var production = false

    @Option(name: .customLong("apns-url"), help: ArgumentHelp("Base URL replacing the chosen environment's APNs host.", valueName: "url"))
    public var apnsURL: String?

    @Option(help: ArgumentHelp("Extra CA bundle (PEM) to trust, e.g. the emulator's.", valueName: "file"))
    public var cacert: String?

    @Option(name: .customLong("state-file"), help: ArgumentHelp("Devices file (JSON).", valueName: "file"))
    public var stateFile: String?

    public init() {}

    public func validate() throws {
        let chosen = [environment != nil ? "--environment" : nil, sandbox ? "--sandbox" : nil, production ? "--production" : nil].compactMap { $0 }
        if chosen.count > 1 {
            throw ValidationError("\(chosen.joined(separator: " and ")) cannot be used together")
        }
        if let environment, APNsEnvironment(userText: environment) == nil {
            throw ValidationError("--environment must be production or sandbox, not \"\(environment)\"")
        }
    }

    /// The options as the core's `ConfigurationFlags`.
    public var flags: ConfigurationFlags {
        var flags = ConfigurationFlags()
        flags.configPath = configPath
        flags.keyPath = keyPath
        flags.keyID = keyID
        flags.teamID = teamID
        flags.topic = topic
        if let environment {
            flags.environment = APNsEnvironment(userText: environment)
        } else if sandbox {
            flags.environment = .sandbox
            flags.environmentFlag = "--sandbox"
        } else if production {
            flags.environment = .production
            flags.environmentFlag = "--production"
        }
        flags.apnsURL = apnsURL
        flags.caFile = cacert
        flags.stateFile = stateFile
        return flags
    }
}
