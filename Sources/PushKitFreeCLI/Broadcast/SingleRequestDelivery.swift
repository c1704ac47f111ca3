import PushKitFreeCore
/// Sends one request (a channel management call or a broadcast) the way `PushDelivery` sends each
/// device's: 429 TooManyRequests, 500, 503, a lost connection or a timeout are resent after the
/// policy's exponential back-off, at most `policy.retries` times within `policy.timeout`; a 403
/// ExpiredProviderToken or InvalidProviderToken gets a new provider token once and is resent at
/// once; everything else is the answer.
package struct SingleRequestDelivery {
    private let client: any HTTP2Transport
    private let tokens: any ProviderTokenSource
    private let policy: DeliveryPolicy
    private let jitter: () -> Double

    /// A delivery through `client`, signing with tokens from `tokens` and retrying as `policy` allows.
    /// - Parameter jitter: a random number in [0, 1).
    package init(
        client: any HTTP2Transport, tokens: any ProviderTokenSource, policy: DeliveryPolicy,
        jitter: @escaping () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.client = client
        self.tokens = tokens
        self.policy = policy
        self.jitter = jitter
    }

    /// How the request ended.
    package struct Outcome: Sendable {
        /// The last HTTP answer; `nil` when the last attempt got none.
        package var answer: HTTP2Answer?
        /// Why the last attempt got no answer.
        package var failure: TransportFailure?
        /// How many times the request went out.
        package var attempts = 0

        /// An outcome; the default is the one before the first attempt.
        package init(answer: HTTP2Answer? = nil, failure: TransportFailure? = nil, attempts: Int = 0) {
            self.answer = answer
            self.failure = failure
            self.attempts = attempts
        }
    }

    /// Sends the request `make` builds for a provider token, resending as the type's summary says.
    /// - Throws: only when no provider token can be had at all.
    package func send(_ make: (_ providerToken: String) -> HTTP2Request) throws -> Outcome {
        let deadline = ContinuousClock.now + policy.timeout
        var token = try tokens.currentToken()
        var outcome = Outcome()
        var retriesUsed = 0
        var tokenReplaced = false
        var tokenFailure: (any Error)?
        var due: ContinuousClock.Instant? = .now
        var backoff: Duration?
        client.perform(
            deadline: deadline,
            next: { now in
                if let delay = backoff {
                    backoff = nil
                    due = now + delay < deadline ? now + delay : nil
                }
                guard let at = due else { return .exhausted }
                guard at <= now else { return .notBefore(at) }
                due = nil
                return .request(make(token))
            },
            onResponse: { response in
                switch response.result {
                case .failure(let failure):
                    if failure.code != 0 { outcome.attempts += 1 }
                    outcome.answer = nil
                    outcome.failure = failure
                    guard failure.kind != .tls, failure.code != 0, retriesUsed < policy.retries else { return }
                    retriesUsed += 1
                    backoff = policy.backoff(beforeRetry: retriesUsed, jitter: jitter())
                case .success(let answer):
                    outcome.attempts += 1
                    outcome.answer = answer
                    outcome.failure = nil
                    guard answer.status >= 300 else { return }
                    guard case .rejected(let rejection, _, _) = APNsResponse(answer) else { return }
                    if rejection.refusesProviderToken {
                        guard !tokenReplaced else { return }
                        do {
                            token = try tokens.replacement(for: token)
                            tokenReplaced = true
                            due = .now
                        } catch {
                            tokenFailure = error
                        }
                    } else if rejection.isTemporary, retriesUsed < policy.retries {
                        retriesUsed += 1
                        backoff = policy.backoff(beforeRetry: retriesUsed, jitter: jitter())
                    }
                }
            })
        if let tokenFailure { throw tokenFailure }
        if outcome.answer == nil, outcome.failure == nil {
            outcome.failure = TransportFailure(kind: .timeout, code: 0, message: "not sent before the timeout")
        }
        return outcome
    }
}
