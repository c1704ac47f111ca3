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
    /// Every setting a send needs that is unset, named in one error when there are two or more
    /// (one at a time would take as many runs); `nil` when at most one is missing, which the
    /// setting's own check then names.
    /// - Parameter needsTopic: whether the topic is among them (a provider token needs no topic).
    package static func missingSettings(_ configuration: Configuration, needsTopic: Bool) -> ConfigurationError? {
        var missing: [String] = []
        if needsTopic, configuration.topic == nil { missing.append("the topic (--topic, APNS_TOPIC or bundle_id)") }
        if configuration.keyPath == nil { missing.append("the provider key (--key-path, APNS_KEY_PATH or key_path)") }
        if configuration.keyID == nil { missing.append("the key id (--key-id, APNS_KEY_ID or key_id)") }
        if configuration.teamID == nil { missing.append("the team id (--team-id, APNS_TEAM_ID or team_id)") }
        guard missing.count > 1 else { return nil }
        let listed = missing.dropLast().joined(separator: ", ") + " and " + missing[missing.count - 1]
        return ConfigurationError(
            "\(missing.count) settings are missing: \(listed); set each as a flag, an environment variable or "
                + "a key of \(configuration.file.path) (apns-jwt check lists every setting and where it comes from)")
    }

    /// No topic (the app's bundle id) is configured, and the payload names none.
    package static let noTopic = ConfigurationError(
        "no topic: set --topic, APNS_TOPIC or bundle_id to the app's bundle id")
}
