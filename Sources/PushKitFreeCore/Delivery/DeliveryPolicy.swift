/// How hard a run tries: retries of temporary failures, the overall time limit and the back-off.
package struct DeliveryPolicy: Sendable {
    /// Resends after a temporary failure (429 TooManyRequests, 500, 503, a lost connection).
    package var retries: Int
    /// No run outlives this, from the first request to the last answer.
    package var timeout: Duration
    /// The first back-off; each later one doubles, up to `maximumBackoff`, with ±50 % jitter.
    package var initialBackoff: Duration
    /// The cap on the doubling back-off, before jitter (so a pause can reach 1.5 times it).
    package var maximumBackoff: Duration
    /// TCP + TLS connect limit for each connection.
    package var connectTimeout: Duration

    /// A policy; the defaults are 3 retries within 30 s, back-off from 250 ms up to 8 s, and 10 s to connect.
    package init(
        retries: Int = 3, timeout: Duration = .seconds(30), initialBackoff: Duration = .milliseconds(250),
        maximumBackoff: Duration = .seconds(8), connectTimeout: Duration = .seconds(10)
    ) {
        self.retries = retries
        self.timeout = timeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.connectTimeout = connectTimeout
    }

    /// A policy from the two settings a user gives, checked.
    /// - Parameters:
    ///   - retries: resends of temporary failures, 0 or more.
    ///   - timeoutSeconds: the limit of a whole run, more than 0.
    /// - Throws: `InvalidSetting` (64) naming the setting at fault.
    package init(retries: Int, timeoutSeconds: Double) throws(InvalidSetting) {
        guard retries >= 0 else { throw InvalidSetting("\(setting: .retries) must be 0 or more, not \(retries)") }
        guard timeoutSeconds > 0, timeoutSeconds.isFinite else {
            let shown =
                timeoutSeconds.rounded() == timeoutSeconds && abs(timeoutSeconds) < 1e15
                ? String(Int(timeoutSeconds)) : String(timeoutSeconds)
            throw InvalidSetting("\(setting: .timeout) must be a number of seconds more than 0, not \(shown)")
        }
        self.init(retries: retries, timeout: .milliseconds(Int(timeoutSeconds * 1000)))
    }

    /// The pause before retry number `retry` (1-based): exponential with jitter in [0.5, 1.5).
    package func backoff(beforeRetry retry: Int, jitter: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 20)
        let base = min(initialBackoff * (1 << exponent), maximumBackoff)
        return base * (0.5 + min(max(jitter, 0), 1))
    }
}
