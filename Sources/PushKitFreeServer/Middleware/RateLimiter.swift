import Synchronization
import PushKitFreeCore

/// A per-client limit of so many requests a minute: a token bucket per client that holds at most
/// `perMinute` requests and refills at that rate, so a client may burst up to the limit and then
/// gets one request every 60/`perMinute` seconds. Safe to call from any thread.
package final class RateLimiter: Sendable {
    /// Requests a client may make per minute; 0 turns the limit off.
    package let perMinute: Int
    private let clock: @Sendable () -> Double
    private let buckets = Mutex<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// Clients whose bucket is full again are forgotten when the table grows past this.
    private static let tableLimit = 10_000

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    package init(perMinute: Int, clock: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.perMinute = max(0, perMinute)
        self.clock = clock
    }

    /// Seconds since an arbitrary point, from `ContinuousClock`.
    package static func monotonicSeconds() -> Double {
        start.secondsElapsed
    }
    private static let start = ContinuousClock.Instant.now

    /// The bucket a client's address spends from: an IPv4 address is its own; an IPv6 address
    /// spends its /64's, since a single host is usually given a whole /64 and could otherwise make
    /// up 2^64 allowances. An IPv4 address seen through an IPv6 socket (`::ffff:10.0.0.5`) is its
    /// IPv4 address. Text that is not an address is its own key.
    package static func key(_ client: String) -> String {
        var host = Substring(client)
        if let zone = host.firstIndex(of: "%") { host = host[..<zone] }
        guard let bytes = IPNetwork.addressBytes(String(host)), bytes.count == 16 else { return client }
        if bytes.prefix(12) == (Array(repeating: 0, count: 10) + [0xff, 0xff])[...] {
            return bytes.suffix(4).map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// Whether `client` has no request left in its allowance, without spending one.
    /// - Returns: `nil` when it has one, else the whole seconds to wait before it has.
    package func exhausted(_ client: String) -> Int? {
        guard perMinute > 0 else { return nil }
        let now = clock()
        let capacity = Double(perMinute)
        let refillPerSecond = capacity / 60
        return buckets.withLock { buckets -> Int? in
            guard let bucket = buckets[Self.key(client)] else { return nil }
            let tokens = min(capacity, bucket.tokens + (now - bucket.updated) * refillPerSecond)
            return tokens >= 1 ? nil : max(1, Int(((1 - tokens) / refillPerSecond).rounded(.up)))
        }
    }

    /// Takes one request from `client`'s allowance (its `key`'s).
    /// - Returns: `nil` when admitted, else the whole seconds to wait before the next one is.
    package func admit(_ client: String) -> Int? {
        guard perMinute > 0 else { return nil }
        let now = clock()
        let capacity = Double(perMinute)
        let refillPerSecond = capacity / 60
        let client = Self.key(client)
        return buckets.withLock { buckets -> Int? in
            var bucket = buckets[client] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * refillPerSecond)
            bucket.updated = now
            defer { buckets[client] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                if buckets.count > Self.tableLimit {
                    Self.forgetFull(&buckets, now: now, capacity: capacity, refillPerSecond: refillPerSecond)
                }
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
        }
    }

    private static func forgetFull(
        _ buckets: inout [String: Bucket], now: Double, capacity: Double, refillPerSecond: Double
    ) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * refillPerSecond < capacity }
    }
}
