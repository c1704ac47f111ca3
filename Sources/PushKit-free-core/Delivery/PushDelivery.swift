#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Sends one notification to many devices over one multiplexed connection and acts on every answer.
///
/// Per device:
/// - 200: delivered.
/// - 410 Unregistered/ExpiredToken: unregistered (the caller prunes it, honouring the timestamp).
/// - 400 BadDeviceToken with no recorded environment: resent once to the other environment.
/// - 403 ExpiredProviderToken/InvalidProviderToken: the token is replaced once per run and the
///   affected requests resent.
/// - 429 TooManyRequests, 500, 503, a lost connection, a GOAWAY, a timeout of one request: resent
///   with exponential back-off and jitter, at most `policy.retries` times, within `policy.timeout`.
///   libcurl itself resends requests a GOAWAY marked unprocessed (above its last stream id).
/// - Everything else is permanent: reported, never retried.
/// A delivered device is never sent to again within a run.
public final class PushDelivery {
    private let client: any HTTP2Transport
    private let baseURL: (APNsEnvironment) -> String
    private let tokens: any ProviderTokenSource
    private let policy: DeliveryPolicy
    private let defaultEnvironment: APNsEnvironment
    private let pause: (Duration) -> Void
    private let jitter: () -> Double

    /// - Parameters:
    ///   - baseURL: the APNs base URL for an environment (the shared configuration's).
    ///   - defaultEnvironment: for devices whose environment is not recorded.
    ///   - pause: how to wait between rounds (tests pass a recorder).
    ///   - jitter: a random number in [0, 1).
    public init(client: any HTTP2Transport, baseURL: @escaping (APNsEnvironment) -> String, tokens: any ProviderTokenSource,
                policy: DeliveryPolicy, defaultEnvironment: APNsEnvironment,
                pause: @escaping (Duration) -> Void = PushDelivery.sleep,
                jitter: @escaping () -> Double = { Double.random(in: 0..<1) }) {
        self.client = client
        self.baseURL = baseURL
        self.tokens = tokens
        self.policy = policy
        self.defaultEnvironment = defaultEnvironment
        self.pause = pause
        self.jitter = jitter
    }

    /// Blocks the thread for `duration` (the tools are single-threaded command-line programs).
    public static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// What to do next with one device after an answer.
    private enum Next {
        case done
        case resendNow
        case resendAfterBackoff
    }

    /// Delivers `request` to every target; one result per target, in the targets' order.
    /// - Throws: only when no provider token can be had at all (key missing or unusable).
    public func deliver(_ request: APNsRequest, to targets: [DeliveryTarget]) throws -> [DeliveryResult] {
        let deadline = ContinuousClock.now + policy.timeout
        var results = targets.map { DeliveryResult(target: $0, environment: $0.recordedEnvironment ?? defaultEnvironment) }
        var transientRetries = [Int](repeating: 0, count: targets.count)
        var switchedEnvironment = [Bool](repeating: false, count: targets.count)
        var providerToken = try tokens.currentToken()
        var tokenReplaced = false
        var pending = Array(targets.indices)
        var backoffRound = 0

        while !pending.isEmpty {
            let headers = request.headers(providerToken: providerToken)
            let environmentOf = results.map(\.environment)
            let requests = pending.lazy.map { [baseURL] index in
                HTTP2Request(url: APNsRequest.url(baseURL: baseURL(environmentOf[index]), token: targets[index].token.hex),
                             headers: headers, body: request.payload, tag: index)
            }
            var resend: [Int] = []
            var needsBackoff = false
            var tokenRejected = false
            client.perform(requests, deadline: deadline) { response in
                let index = response.tag
                let next: Next
                switch response.result {
                case .failure(let failure):
                    next = record(failure, into: &results[index], retriesUsed: &transientRetries[index])
                case .success(let answer):
                    results[index].attempts += 1
                    next = record(APNsResponse(answer), answer: answer, into: &results[index],
                                  retriesUsed: &transientRetries[index], switched: &switchedEnvironment[index],
                                  tokenReplaced: tokenReplaced, tokenRejected: &tokenRejected)
                }
                switch next {
                case .done: break
                case .resendNow: resend.append(index)
                case .resendAfterBackoff:
                    resend.append(index)
                    needsBackoff = true
                }
            }
            if tokenRejected {
                providerToken = try tokens.replacement(for: providerToken)
                tokenReplaced = true
            }
            pending = resend.sorted()
            if needsBackoff, !pending.isEmpty {
                backoffRound += 1
                let wait = min(policy.backoff(beforeRetry: backoffRound, jitter: jitter()), deadline - ContinuousClock.now)
                if wait > .zero { pause(wait) }
            }
            if !pending.isEmpty, ContinuousClock.now >= deadline {
                for index in pending where results[index].status == 0 && results[index].reason == nil {
                    results[index].reason = "not sent before the timeout"
                    results[index].transportFailure = .timeout
                }
                break
            }
        }
        return results
    }

    private func record(_ failure: TransportFailure, into result: inout DeliveryResult, retriesUsed: inout Int) -> Next {
        if failure.code != 0 { result.attempts += 1 } // code 0: never handed to the network
        result.outcome = .failed
        result.status = 0
        result.reason = failure.message
        result.apnsID = nil
        result.transportFailure = failure.kind
        if failure.kind == .tls || failure.code == 0 { return .done }
        guard retriesUsed < policy.retries else { return .done }
        retriesUsed += 1
        return .resendAfterBackoff
    }

    private func record(_ response: APNsResponse, answer: HTTP2Answer, into result: inout DeliveryResult, retriesUsed: inout Int,
                        switched: inout Bool, tokenReplaced: Bool, tokenRejected: inout Bool) -> Next {
        result.status = answer.status
        result.transportFailure = nil
        switch response {
        case .accepted(let apnsID, _):
            result.outcome = .delivered
            result.reason = nil
            result.apnsID = apnsID
            return .done
        case .rejected(let rejection, let apnsID, let timestamp):
            result.reason = rejection.reason.rawValue
            result.apnsID = apnsID
            switch (rejection.status, rejection.reason) {
            case (410, _):
                result.outcome = .unregistered
                result.unregisteredAt = timestamp
                return .done
            case (403, .expiredProviderToken), (403, .invalidProviderToken):
                result.outcome = .rejected
                guard !tokenReplaced else { return .done }
                tokenRejected = true
                return .resendNow
            case (400, .badDeviceToken) where result.target.recordedEnvironment == nil && !switched:
                result.outcome = .rejected
                switched = true
                result.environment = result.environment.other
                return .resendNow
            case (429, .tooManyRequests), (500, _), (503, _):
                result.outcome = .failed
                guard retriesUsed < policy.retries else { return .done }
                retriesUsed += 1
                return .resendAfterBackoff
            default:
                result.outcome = .rejected
                return .done
            }
        }
    }
}
