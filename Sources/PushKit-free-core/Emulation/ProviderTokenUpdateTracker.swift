#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Enforces APNs' limit on how often a key's provider token may change: a new token that replaces the
/// previous one less than 20 minutes after that one first appeared is refused
/// (`429 TooManyProviderTokenUpdates`).
///
/// Tokens are tracked per team and key id. A token seen before stays acceptable (several processes
/// sharing one cached token is right); only a token never seen counts as an update. Safe to share
/// between connections on different threads.
public final class ProviderTokenUpdateTracker: Sendable {
    /// The shortest time between two token updates APNs allows, in seconds (20 minutes).
    public static let minimumInterval: Double = 20 * 60

    private struct KeyHistory {
        /// When each known token first appeared, in seconds since 1970.
        var firstSeen: [String: Double] = [:]
        /// When the newest token first appeared.
        var latestUpdate: Double = -.infinity
    }

    private let histories = Mutex<[String: KeyHistory]>([:])

    public init() {}

    /// Records `token` for the key and returns whether APNs would accept it now.
    public func admit(token: String, keyID: String, teamID: String, now: Date) -> Bool {
        let seconds = now.timeIntervalSince1970
        return histories.withLock { histories in
            let key = teamID + "." + keyID
            var history = histories[key] ?? KeyHistory()
            if history.firstSeen[token] != nil { return true }
            if seconds - history.latestUpdate < Self.minimumInterval { return false }
            // Tokens expire after an hour, so older entries can go.
            history.firstSeen = history.firstSeen.filter { seconds - $0.value < 2 * 3600 }
            history.firstSeen[token] = seconds
            history.latestUpdate = seconds
            histories[key] = history
            return true
        }
    }
}
