import Synchronization
import PushKitFreeCore

/// A per-client limit of so many requests a minute: a token bucket per client that holds at most
/// `perMinute` requests and refills at that rate, so a client may burst up to the limit and then
/// gets one request every 60/`perMinute` seconds. Safe to call from any thread.
public final class RateLimiter: Sendable {
    /// Requests a client may make per minute; 0 turns the limit off.
    public let perMinute: Int
    private let clock: @Sendable () -> Double
    private let buckets = Mutex<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// Clients whose bucket is full again are forgotten when the table grows past this.
    private static let tableLimit = 10_000

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public init(perMinute: Int, clock: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.perMinute = max(0, perMinute)
        self.clock = clock
    }

    /// Seconds since an arbitrary point, from `ContinuousClock`.
    public static func monotonicSeconds() -> Double {
        start.secondsElapsed
    }
    private static let start = ContinuousClock.Instant.now

    /// Takes one request from `client`'s allowance.
    /// - Returns: `nil` when admitted, else the whole seconds to wait before the next one is.
    public func admit(_ client: String) -> Int? {
        guard perMinute > 0 else { return nil }
        let now = clock()
        let capacity = Double(perMinute)
        let refillPerSecond = capacity / 60
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
