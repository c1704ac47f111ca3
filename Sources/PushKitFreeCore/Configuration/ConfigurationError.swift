/// A problem with the settings: a missing or malformed value, or an unreadable config file.
package struct ConfigurationError: PushKitError {
    /// What is wrong, naming the flag, variable, key or file at fault.
    package let message: String
    /// 78 unless given otherwise; 66 for a config file that cannot be read, or is named and missing.
    package let exitStatus: ExitStatus

    /// An error with `message`, exit 78 by default.
    package init(_ message: String, exitStatus: ExitStatus = .configuration) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The message.
    package var description: String { message }
}

extension ConfigurationError {
    /// No topic (the app's bundle id) is configured, and the payload names none.
    package static let noTopic = ConfigurationError(
        "no topic: set --topic, APNS_TOPIC or bundle_id to the app's bundle id")
}
