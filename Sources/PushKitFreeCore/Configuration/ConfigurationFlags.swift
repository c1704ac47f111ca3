/// The shared settings as given on a command line; `nil` means the flag was not used.
///
/// Filled by the tools' argument parsing and handed to `Configuration.resolve`, which applies the
/// precedence flag > environment variable > config file > default.
public struct ConfigurationFlags: Sendable, Equatable {
    public var configPath: String?
    public var keyPath: String?
    public var keyID: String?
    public var teamID: String?
    public var topic: String?
    /// From `--environment`, `--sandbox` or `--production`.
    public var environment: APNsEnvironment?
    /// The flag that set `environment`, for messages.
    public var environmentFlag: String = "--environment"
    /// `--apns-url`: replaces the base URL of whichever environment is used.
    public var apnsURL: String?
    /// `--manage-url`: replaces the channel management URL of whichever environment is used.
    public var manageURL: String?
    public var caFile: String?
    /// `--proxy`: the proxy URL for APNs connections.
    public var proxy: String?
    public var stateFile: String?

    public init() {}
}
