/// A problem with the settings: a missing or malformed value, or an unreadable config file.
package struct ConfigurationError: PushKitError {
    package let message: String
    package let exitStatus: ExitStatus

    package init(_ message: String, exitStatus: ExitStatus = .configuration) {
        self.message = message
        self.exitStatus = exitStatus
    }

    package var description: String { message }
}

extension ConfigurationError {
    /// No topic (the app's bundle id) is configured, and the payload names none.
    package static let noTopic = ConfigurationError(
        "no topic: set --topic, APNS_TOPIC or bundle_id to the app's bundle id")
}
