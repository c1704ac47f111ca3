/// The shared settings as given on a command line; `nil` means the flag was not used.
///
/// Filled by the tools' argument parsing and handed to `Configuration.resolve`, which applies the
/// precedence flag > environment variable > config file > default.
package struct ConfigurationFlags: Sendable, Equatable {
    /// `--config`: the config file's path.
    package var configPath: String?
    /// `--key-path`: the `.p8` provider key.
    package var keyPath: String?
    /// `--key-id`: the provider key's id.
    package var keyID: String?
    /// `--team-id`: the developer team's id.
    package var teamID: String?
    /// `--topic`: the app's bundle id.
    package var topic: String?
    /// From `--environment`, `--sandbox` or `--production`.
    package var environment: APNsEnvironment?
    /// The flag that set `environment`, for messages.
    package var environmentFlag: String = "--environment"
    /// `--apns-url`: replaces the base URL of whichever environment is used.
    package var apnsURL: String?
    /// `--manage-url`: replaces the channel management URL of whichever environment is used.
    package var manageURL: String?
    /// `--cacert`: a CA bundle to trust besides the system's.
    package var caFile: String?
    /// `--proxy`: the proxy URL for APNs connections.
    package var proxy: String?
    /// `--state-file`: the device registry, a file or a PostgreSQL URL.
    package var stateFile: String?
    /// `register-apns serve --public-url`.
    package var publicURL: String?
    /// `--endpoint`: the base URL of `register-apns serve`, for the tools that ask it questions.
    package var endpoint: String?
    /// `--secret-file`: the file holding the secret `register-apns serve` expects of callers.
    package var endpointSecretFile: String?

    /// No flags used.
    package init() {}
}
