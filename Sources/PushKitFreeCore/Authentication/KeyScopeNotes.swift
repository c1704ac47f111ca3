#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What APNs said about the scope of a provider key, remembered for `apns-jwt check`:
/// `key-scope.json` in the state directory (mode 0600).
///
/// A send that APNs answers `403 BadEnvironmentKeyIdInToken` (the key is limited to the other
/// environment) or `400 TopicDisallowed` (the key may not push to the topic) notes it here, by key
/// id; a later delivery with that key in that environment, or to that topic, clears the note. The
/// file is a hint, not a registry: it is replaced atomically and read without a lock, and when two
/// sends end at once the last one's view wins. Nothing is read or written by a send that met no
/// such answer while no note exists.
///
/// ```json
/// {"keys":{"ABCDE12345":{"refused_environments":{"production":"2026-11-24T05:00:00Z"},
///                         "refused_topics":{"com.example.app":"2026-11-24T05:00:00Z"}}}}
/// ```
package struct KeyScopeNotes: Sendable {
    /// The file.
    package let path: String

    /// The notes in `stateDirectory`.
    package init(stateDirectory: String) {
        path = stateDirectory + "/key-scope.json"
    }

    /// One thing APNs refused a key for, and when (ISO 8601, UTC).
    package struct Refusal: Sendable, Equatable {
        /// What was refused: the key in an environment, or the key for a topic.
        package enum Scope: Sendable, Equatable {
            /// `BadEnvironmentKeyIdInToken` in this environment.
            case environment(APNsEnvironment)
            /// `TopicDisallowed` for this bundle id.
            case topic(String)
        }

        /// The refused key's id.
        package let keyID: String
        /// What APNs refused the key for.
        package let scope: Scope
        /// When APNs last refused it, ISO 8601 in UTC; empty when the file holds no string there.
        package let at: String
    }

    /// Every noted refusal of `keyID`; none when the file is missing or unreadable.
    package func refusals(of keyID: String) -> [Refusal] {
        guard let key = (try? load())?[keyID] else { return [] }
        var refusals: [Refusal] = []
        for (name, at) in key["refused_environments"]?.objectValue ?? [:] {
            guard let environment = APNsEnvironment(rawValue: name) else { continue }
            refusals.append(Refusal(keyID: keyID, scope: .environment(environment), at: at.stringValue ?? ""))
        }
        for (topic, at) in key["refused_topics"]?.objectValue ?? [:] {
            refusals.append(Refusal(keyID: keyID, scope: .topic(topic), at: at.stringValue ?? ""))
        }
        return refusals.sorted { $0.at < $1.at }
    }

    /// Notes what `results` of a send signed with `keyID` to `topic` showed: refusals for the key's
    /// environment or topic, and deliveries that clear earlier ones.
    /// - Throws: `FileSystemError` when the file cannot be written.
    package func record(_ results: [DeliveryResult], keyID: String, topic: String?, at date: Date) throws {
        var refusedEnvironments = Set<APNsEnvironment>(), deliveredEnvironments = Set<APNsEnvironment>()
        var topicRefused = false, topicDelivered = false
        for result in results {
            let reason = APNsReason(rawValue: result.reason ?? "")
            if result.outcome == .delivered {
                deliveredEnvironments.insert(result.environment)
                topicDelivered = true
            } else if result.status == 403, DeliveryAdvice.isEnvironmentScope(reason) {
                refusedEnvironments.insert(result.environment)
            } else if result.status == 400, reason == .topicDisallowed {
                topicRefused = true
            }
        }
        let refusedSomething = !refusedEnvironments.isEmpty || (topicRefused && topic != nil)
        guard refusedSomething || PosixFile.entry(at: path) != .missing else { return }
        var keys = (try? load()) ?? [:]
        var key = keys[keyID]?.objectValue ?? [:]
        var environments = key["refused_environments"]?.objectValue ?? [:]
        var topics = key["refused_topics"]?.objectValue ?? [:]
        let now = JSONValue.string(ISO8601Timestamp.format(date))
        for environment in deliveredEnvironments { environments[environment.rawValue] = nil }
        for environment in refusedEnvironments { environments[environment.rawValue] = now }
        if let topic, topicDelivered { topics[topic] = nil }
        if let topic, topicRefused { topics[topic] = now }
        key["refused_environments"] = environments.isEmpty ? nil : .object(environments)
        key["refused_topics"] = topics.isEmpty ? nil : .object(topics)
        let updated = key.isEmpty ? nil : JSONValue.object(key)
        guard updated != keys[keyID] else { return }
        keys[keyID] = updated
        try PosixFile.createPrivateDirectory(PosixFile.parentDirectory(of: path))
        try PosixFile.replaceAtomically(path, with: JSONValue.object(["keys": .object(keys)]).serialized())
    }

    private func load() throws -> [String: JSONValue] {
        guard let data = try PosixFile.readIfPresent(path) else { return [:] }
        return try JSONValue.parse(data)["keys"]?.objectValue ?? [:]
    }
}
