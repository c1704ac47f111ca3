/// The shared settings as given on a command line; `nil` means the flag was not used.
///
/// Filled by the tools' argument parsing and handed to `Configuration.resolve`, which applies the
/// precedence flag > environment variable > config file > default.
package struct ConfigurationFlags: Sendable, Equatable {
    package var configPath: String?
    package var keyPath: String?
    package var keyID: String?
    package var teamID: String?
    package var topic: String?
    /// From `--environment`, `--sandbox` or `--production`.
    package var environment: APNsEnvironment?
    /// The flag that set `environment`, for messages.
    package var environmentFlag: String = "--environment"
    /// `--apns-url`: replaces the base URL of whichever environment is used.
    package var apnsURL: String?
    /// `--manage-url`: replaces the channel management URL of whichever environment is used.
    package var manageURL: String?
    package var caFile: String?
    /// `--proxy`: the proxy URL for APNs connections.
    package var proxy: String?
    package var stateFile: String?

    package init() {}
}
