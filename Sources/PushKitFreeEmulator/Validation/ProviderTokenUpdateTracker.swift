#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Enforces APNs' limit on how often a provider token may change (`429 TooManyProviderTokenUpdates`).
///
/// Apple's documented rule is per connection: a connection keeps one provider token and may
/// replace it no more often than every 20 minutes. A client that opens a new connection with a
/// freshly signed token for each notification works against APNs, so by default a new token on
/// another connection within 20 minutes of the key's previous one is accepted, with a note for the
/// record. `Rule.global` (`apns-emulator --global-token-updates`) refuses any new token for the key
/// within 20 minutes, whatever the connection: the stricter reading, which the tests that prove
/// `send-push` shares one token across processes use.
///
/// Tokens are tracked per team and key id. A token seen before stays acceptable (several processes
/// sharing one cached token is right). Safe to share between connections on different threads.
package final class ProviderTokenUpdateTracker: Sendable {
    /// The shortest time between two token updates APNs allows, in seconds (20 minutes).
    package static let minimumInterval: Double = 20 * 60

    /// Which updates count against the 20 minutes.
    package enum Rule: Sendable {
        /// Only a change of token on the same connection (Apple's rule; the default).
        case perConnection
        /// Any new token for the key, on any connection.
        case global
    }

    /// What `admit` decided.
    package enum Verdict: Sendable, Equatable {
        /// Accepted; `note` says when a stricter reading would have refused it.
        case accepted(note: String?)
        /// Refused with 429 TooManyProviderTokenUpdates, for `problem`.
        case refused(problem: String)
    }

    /// The token a connection uses and since when, kept by that connection's validator.
    package struct ConnectionToken: Sendable, Equatable {
        /// The provider token, as sent.
        package var token: String
        /// When the connection took it up, in seconds since 1970.
        package var since: Double
    }

    /// Which updates count against the 20 minutes.
    package let rule: Rule

    private struct KeyHistory {
        /// When each known token first appeared, in seconds since 1970.
        var firstSeen: [String: Double] = [:]
        /// When the newest token first appeared.
        var latestUpdate: Double = -.infinity
    }

    private let histories = Mutex<[String: KeyHistory]>([:])

    /// A tracker with no token seen yet, applying `rule` (Apple's per-connection rule unless told).
    package init(rule: Rule = .perConnection) {
        self.rule = rule
    }

    /// Records `token` for the key, as used on a connection whose token so far was `connection`,
    /// and returns whether APNs would accept it now. On acceptance, `connection` becomes `token`.
    package func admit(
        token: String, keyID: String, teamID: String, now: Date, connection: inout ConnectionToken?
    ) -> Verdict {
        let seconds = now.timeIntervalSince1970
        if rule == .perConnection, let current = connection, current.token != token,
            seconds - current.since < Self.minimumInterval
        {
            return .refused(
                problem:
                    "a new provider token on this connection \(Int(seconds - current.since)) s after its previous one; APNs allows one change per connection every 20 minutes"
            )
        }
        let verdict: Verdict = histories.withLock { histories in
            let key = teamID + "." + keyID
            var history = histories[key] ?? KeyHistory()
            if history.firstSeen[token] != nil { return .accepted(note: nil) }
            var note: String?
            let sinceUpdate = seconds - history.latestUpdate
            if sinceUpdate < Self.minimumInterval {
                if rule == .global {
                    return .refused(
                        problem:
                            "a new provider token \(Int(sinceUpdate)) s after the previous one for this key (--global-token-updates: any connection counts)"
                    )
                }
                note =
                    "a new provider token for this key \(Int(sinceUpdate)) s after the previous one, on another connection: APNs accepts this per connection (--global-token-updates refuses it)"
            }
            // Tokens expire after an hour, so older entries can go.
            history.firstSeen = history.firstSeen.filter { seconds - $0.value < 2 * 3600 }
            history.firstSeen[token] = seconds
            history.latestUpdate = seconds
            histories[key] = history
            return .accepted(note: note)
        }
        if case .accepted = verdict, connection?.token != token {
            connection = ConnectionToken(token: token, since: seconds)
        }
        return verdict
    }
}
