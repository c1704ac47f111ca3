/// What an answer about the provider key's scope, or an expired device token, means for the user,
/// in words: the APNs reason says what happened, the advice what to do about it.
///
/// Since 2025 an APNs key can be team-scoped or topic-specific, and limited to the sandbox or to
/// production. APNs answers:
/// - `403 BadEnvironmentKeyIdInToken`: the key is limited to the other environment. Retrying
///   cannot help; another key, or the other environment, can.
/// - `403 UnrelatedKeyIdInToken`: the connection is bound to another key (the key of the first
///   token accepted on it); only a new connection can carry this key. `PushDelivery` opens one and
///   resends, so advice is only given when that did not help either.
/// - `400 TopicDisallowed`: the key may not push to this topic. Apple does not document which
///   reason a topic-specific key gets for a topic it was not made for; this is the documented
///   reason that says so ("pushing to this topic is not allowed"), and the one the emulator answers.
/// - `410 ExpiredToken`: the device token (or a Live Activity push-to-start token) has expired;
///   it is pruned like an `Unregistered` one.
///
/// Advice names the key id (never the key or a token) and the settings that fix it.
package enum DeliveryAdvice {
    /// `BadEnvironmentKeyIdInToken` as one library (APNSwift) spells it; Apple's table has `Id`.
    static let badEnvironmentKeyWithoutID = APNsReason(rawValue: "BadEnvironmentKeyInToken")

    /// Whether `reason` says the key is limited to the other environment.
    package static func isEnvironmentScope(_ reason: APNsReason) -> Bool {
        reason == .badEnvironmentKeyIDInToken || reason == badEnvironmentKeyWithoutID
    }

    /// The advice for `result`, or `nil` when its reason needs none.
    /// - Parameters:
    ///   - keyID: the key id the provider token names.
    ///   - topic: the app's bundle id, when configured.
    package static func advice(for result: DeliveryResult, keyID: String, topic: String?) -> String? {
        if result.status == 0 {
            switch result.transportFailure {
            case .tls:
                return "the APNs server's certificate is not trusted here: a server with a CA of its own (the "
                    + "emulator, a proxy that inspects TLS) needs --cacert or APNS_CA_FILE; apns-jwt check --online "
                    + "tests the connection"
            case .connect:
                return "APNs cannot be reached from here (the host name, the network or the proxy): "
                    + "apns-jwt check --online tests the connection"
            default:
                break
            }
        }
        if case .credentials(let reason) = result.stoppedBy {
            return credentialsAdvice(reason, keyID: keyID)
        }
        guard let text = result.reason, result.status != 0 else { return nil }
        let reason = APNsReason(rawValue: text)
        let environment = result.environment
        let isPushToStart = result.target.tokenKind == .pushToStart
        switch (result.status, reason) {
        case (403, _) where isEnvironmentScope(reason):
            let other = environment.other.rawValue
            var advice =
                "key \(keyID) is limited to \(other), not \(environment.rawValue): "
                + "sign with a key for \(environment.rawValue) (key_id and key_path)"
            if result.target.recordedEnvironment == nil {
                advice += " or send to \(other) (--environment \(other))"
            } else {
                advice += "; the device is registered for \(environment.rawValue)"
            }
            return advice
        case (403, .unrelatedKeyIDInToken):
            return "APNs refused key \(keyID) on a connection bound to another key, also on a new connection: "
                + "something between here and APNs (a proxy pooling connections) shares it with another key"
        case (400, .topicDisallowed):
            let target = topic.map { "topic \($0)" } ?? "this topic"
            return "key \(keyID) may not push to \(target): a topic-specific key must list this bundle id, "
                + "or sign with a team-scoped key of the app's team (key_id and key_path)"
        case (403, .invalidProviderToken):
            return credentialsAdvice(reason, keyID: keyID)
        case (410, .expiredToken):
            return isPushToStart
                ? "the push-to-start token has expired: the app must send its new one"
                : "the device token has expired: the app must register its new one"
        default:
            return nil
        }
    }

    /// What a refused provider token means: the key id, team id and key do not belong together.
    private static func credentialsAdvice(_ reason: APNsReason, keyID: String) -> String {
        if reason == .expiredProviderToken {
            return "APNs took a freshly signed token for expired: is this machine's clock right? (apns-jwt check)"
        }
        return "APNs refuses the provider token of key \(keyID): the key id, the team id and the .p8 must belong "
            + "together (the developer account's Keys page); apns-jwt check --online tells without sending"
    }

    /// Sets `advice` on every result that has some.
    package static func annotate(_ results: inout [DeliveryResult], keyID: String, topic: String?) {
        for index in results.indices where results[index].target.token.transport == .apns {
            results[index].advice = advice(for: results[index], keyID: keyID, topic: topic)
        }
    }
}
