import PushKitFreeCore

/// What an APNs key may be used for. Since 2025 a key is team-scoped (any topic of the team) or
/// topic-specific (listed bundle ids), and may be limited to the sandbox or to production; keys
/// made before work everywhere, which is the default here.
///
/// APNs' answers, as the emulator gives them (`apns-emulator --key-environment`, `--key-topics`):
/// - a key limited to the other environment: `403 BadEnvironmentKeyIdInToken`;
/// - a topic the key is not scoped to: `400 TopicDisallowed`. Apple does not document this case's
///   reason; `TopicDisallowed` ("pushing to this topic is not allowed") is the documented one that
///   fits, and the one client libraries report for a key or certificate of another app.
package struct KeyScope: Sendable, Equatable {
    /// The only environment the key works in; `nil` for both.
    package var environment: APNsEnvironment?
    /// The bundle ids a topic-specific key may push to; `nil` for a team-scoped key.
    package var topics: Set<String>?

    /// A scope limited to `environment` and `topics`; with neither, a key that works everywhere.
    package init(environment: APNsEnvironment? = nil, topics: Set<String>? = nil) {
        self.environment = environment
        self.topics = topics
    }

    /// A key that works everywhere, for every topic of its team.
    package static let unrestricted = KeyScope()

    /// Whether the key may push to `topic` sent with `pushType`: its bundle id (the topic without
    /// the push type's suffix, `.voip`, `.push-type.liveactivity`, ...) is one of `topics`.
    package func allows(topic: String, pushType: APNsPushType) -> Bool {
        guard let topics else { return true }
        let suffix = pushType.topicSuffix
        let bundleID = !suffix.isEmpty && topic.hasSuffix(suffix) ? String(topic.dropLast(suffix.count)) : topic
        return topics.contains(bundleID)
    }

    /// Parses the value of `--key-environment` or `--key-topics`: `VALUE` for the configured key,
    /// or `KID=VALUE` for the key with that key id.
    /// - Returns: the key id, when one is named, and the value.
    package static func split(_ argument: String) -> (keyID: String?, value: String) {
        guard let equals = argument.firstIndex(of: "=") else { return (nil, argument) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

/// A key-scope flag that names a key the emulator does not trust: a usage error (exit 64).
package struct KeyScopeError: PushKitError {
    /// The message, naming the flag and the key id.
    package let message: String
    /// Always 64: the flag is at fault.
    package var exitStatus: ExitStatus { .usage }
    /// An error with a short, lowercase message.
    package init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}
