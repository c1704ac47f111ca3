/// A problem with the settings: a missing or malformed value, or an unreadable config file.
public struct ConfigurationError: PushKitError {
    public let message: String
    public let exitStatus: ExitStatus

    public init(_ message: String, exitStatus: ExitStatus = .configuration) {
        self.message = message
        self.exitStatus = exitStatus
    }

    public var description: String { message }
}

extension ConfigurationError {
    /// No topic (the app's bundle id) is configured, and the payload names none.
    public static let noTopic = ConfigurationError(
        "no topic: set --topic, APNS_TOPIC or bundle_id to the app's bundle id")
}
