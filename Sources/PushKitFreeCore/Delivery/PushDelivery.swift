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
/// - 403 UnrelatedKeyIdInToken: the connection is bound to another key (APNs binds a connection to
///   the key of the first token it accepted there): a new connection is opened once per run and the
///   affected requests resent once on it.
/// - 403 BadEnvironmentKeyIdInToken: the key is limited to the other environment. Permanent: no
///   retry, and no switch to the other environment (the device's token belongs where it is sent).
/// - 429 TooManyRequests, 500, 503, a lost connection (also one the transport closed because it went
///   silent), a GOAWAY, a timeout of one request: resent
///   with exponential back-off and jitter, at most `policy.retries` times, within `policy.timeout`.
///   Each device waits out its own back-off while the others' requests are in flight: a device that
///   answers slowly holds up no one's retry. libcurl itself resends requests a GOAWAY marked
///   unprocessed (above its last stream id).
/// - Everything else is permanent: reported, never retried.
/// A delivered device is never sent to again within a run.
///
/// A failure that is the same for every device stops the run early instead of being met once per
/// device: `systemicThreshold` requests in a row to one environment failing with the same TLS or
/// connect failure before that environment answered anything (an untrusted certificate, a name
/// that does not resolve, a refused connection), or the same provider-token refusal of a freshly
/// signed token with no request accepted (wrong key id, team id or key). Nothing more is sent there
/// (or anywhere, for the credentials); the devices not sent to end `notTried`, with the failure in
/// `stoppedBy`.
package final class PushDelivery {
    /// How many requests in a row must fail the same way before the failure counts as the same for
    /// every device.
    package static let systemicThreshold = 3

    private let client: any HTTP2Transport
    private let baseURL: (APNsEnvironment) -> String
    private let tokens: any ProviderTokenSource
    private let policy: DeliveryPolicy
    private let defaultEnvironment: APNsEnvironment
    private let jitter: () -> Double
    private let interruption: RunInterruption?

    /// A delivery through `client`, signing with tokens from `tokens` and retrying as `policy` allows.
    /// - Parameters:
    ///   - baseURL: the APNs base URL for an environment (the shared configuration's).
    ///   - defaultEnvironment: for devices whose environment is not recorded.
    ///   - jitter: a random number in [0, 1).
    ///   - interruption: when set, nothing more is sent; the answers in flight are waited for until
    ///     its cutoff, and those that do not come are `unknown`, the devices not sent to `notTried`.
    package init(
        client: any HTTP2Transport, baseURL: @escaping (APNsEnvironment) -> String, tokens: any ProviderTokenSource,
        policy: DeliveryPolicy, defaultEnvironment: APNsEnvironment,
        jitter: @escaping () -> Double = { Double.random(in: 0..<1) }, interruption: RunInterruption? = nil
    ) {
        self.client = client
        self.baseURL = baseURL
        self.tokens = tokens
        self.policy = policy
        self.defaultEnvironment = defaultEnvironment
        self.jitter = jitter
        self.interruption = interruption
    }

    /// What to do next with one device after an answer.
    private enum Next {
        case done
        case resendNow
        case resendAfterBackoff
        /// The provider token was refused: replace it (once per run) and resend.
        case replaceTokenAndResend
        /// The connection is bound to another key: open a new one (once per run) and resend.
        case openNewConnectionAndResend
    }

    /// Delivers `request` to every target; one result per target, in the targets' order.
    ///
    /// Requests stream through the transport: first sends in target order, resends as soon as they
    /// are due (at once for a replaced provider token or the other environment, after the device's
    /// own back-off for a temporary failure), all while other requests are in flight.
    /// - Parameters:
    ///   - onFinished: told each device's index and result as soon as the device is done with
    ///     (answered for good, or out of retries), for output that streams; the devices left at the
    ///     end (deadline, not tried) are only in the returned results.
    ///   - onTurn: called on every turn of the transport's loop (at least ten times a second while
    ///     it waits), on this thread: for output that must move while nothing finishes.
    ///   - bodies: one body per target, in place of `request.payload` (an encrypted send's, sealed
    ///     for each device); `nil` sends `request.payload` to every target.
    ///   - lanes: deliveries of other transports (FCM) that share the run's transport loop, so their
    ///     requests are in flight at the same time as these.
    /// - Throws: only when no provider token can be had at all (key missing or unusable).
    package func deliver(
        _ request: APNsRequest, to targets: [DeliveryTarget], bodies: [Data]? = nil,
        alongside lanes: [any DeliveryLane] = [],
        onFinished: (Int, DeliveryResult) -> Void = { _, _ in }, onTurn: () -> Void = {}
    ) throws -> [DeliveryResult] {
        let deadline = ContinuousClock.now + policy.timeout
        var results = targets.map {
            DeliveryResult(target: $0, environment: $0.recordedEnvironment ?? defaultEnvironment)
        }
        var transientRetries = [Int](repeating: 0, count: targets.count)
        var switchedEnvironment = [Bool](repeating: false, count: targets.count)
        var providerToken = try tokens.currentToken()
        var headers = request.headers(providerToken: providerToken)
        var tokenReplaced = false
        var tokenFailure: (any Error)?
        /// The provider token each device's latest request carried.
        var sentWith = [String](repeating: "", count: targets.count)
        /// How many new connections this run asked for (at most one), and the number each device's
        /// latest request went out after.
        var connectionsReplaced = 0
        var sentOnConnection = [Int](repeating: 0, count: targets.count)
        var queue = SendQueue(count: targets.count)
        var systemic = SystemicFailureWatch()
        /// Whether a device may still be sent to (its environment was not stopped).
        func sendable(_ index: Int) -> Bool { systemic.stopped(results[index].environment) == nil }

        let interruption = self.interruption
        DeliveryLanes.perform(
            on: client, deadline: deadline,
            cutoff: {
                onTurn()
                return interruption?.cutoff
            }, alongside: lanes,
            next: { [baseURL] now in
                guard tokenFailure == nil, interruption?.signal == nil else { return .exhausted }
                // The next device due, skipping those of an environment the run stopped sending to.
                var index: Int
                repeat {
                    switch queue.next(at: now, deadline: deadline) {
                    case .send(let due): index = due
                    case .wait(let supply): return supply
                    }
                } while !sendable(index)
                sentWith[index] = providerToken
                sentOnConnection[index] = connectionsReplaced
                return .request(
                    HTTP2Request(
                        url: APNsRequest.url(
                            baseURL: baseURL(results[index].environment), token: targets[index].token.text),
                        headers: headers, body: bodies?[index] ?? request.payload, tag: index))
            },
            onResponse: { response in
                let index = response.tag
                let next: Next
                switch response.result {
                case .failure(let failure):
                    next = record(failure, into: &results[index], retriesUsed: &transientRetries[index])
                    systemic.note(failure, from: results[index].environment)
                case .success(let answer):
                    results[index].attempts += 1
                    systemic.noteAnswer(
                        APNsResponse(answer), from: results[index].environment,
                        withReplacedToken: tokenReplaced && sentWith[index] == providerToken)
                    next = record(
                        APNsResponse(answer), answer: answer, into: &results[index],
                        retriesUsed: &transientRetries[index],
                        switched: &switchedEnvironment[index], tokenReplaced: tokenReplaced,
                        sentWithCurrentToken: sentWith[index] == providerToken,
                        connection: (
                            replaced: connectionsReplaced > 0,
                            current: sentOnConnection[index] == connectionsReplaced
                        ))
                }
                switch next {
                case .done: onFinished(index, results[index])
                case .resendNow: queue.resend(index)
                case .resendAfterBackoff:
                    queue.resend(index, after: policy.backoff(beforeRetry: transientRetries[index], jitter: jitter()))
                case .replaceTokenAndResend:
                    do {
                        providerToken = try tokens.replacement(for: providerToken)
                        headers = request.headers(providerToken: providerToken)
                        tokenReplaced = true
                        queue.resend(index)
                    } catch {
                        tokenFailure = error
                    }
                case .openNewConnectionAndResend:
                    client.openNewConnection()
                    connectionsReplaced += 1
                    queue.resend(index)
                }
            })
        if let tokenFailure { throw tokenFailure }
        for index in results.indices where results[index].attempts == 0 && results[index].outcome == .failed {
            if interruption?.signal != nil, results[index].status == 0, results[index].reason == nil {
                results[index].outcome = .notTried
                results[index].reason = "not sent: the run was interrupted"
                continue
            }
            guard let stop = systemic.stopped(results[index].environment) else { continue }
            results[index].outcome = .notTried
            results[index].reason = stop.description
            results[index].stoppedBy = stop
            if case .transport(let kind, _) = stop { results[index].transportFailure = kind }
        }
        for index in results.indices
        where results[index].outcome != .delivered && results[index].status == 0 && results[index].reason == nil {
            results[index].reason = "not sent before the timeout"
            results[index].transportFailure = .timeout
        }
        return results
    }

    /// Watches for a failure that is the same for every device (see the type's notes).
    private struct SystemicFailureWatch {
        /// Per environment, whether it answered and its streak of the same transport failure.
        private var unreachable: [APNsEnvironment: UnreachableWatch] = [:]
        /// Provider-token refusals of the replaced token in a row, and their reason.
        private var refusals: (reason: APNsReason?, count: Int) = (nil, 0)
        /// Whether APNs accepted anything: the credentials work.
        private var credentialsWork = false
        private var stops: [APNsEnvironment: DeliveryStop] = [:]
        private var credentialStop: DeliveryStop?

        /// The failure that stopped sending to `environment`, if one did.
        func stopped(_ environment: APNsEnvironment) -> DeliveryStop? { credentialStop ?? stops[environment] }

        mutating func note(_ failure: TransportFailure, from environment: APNsEnvironment) {
            if let stop = unreachable[environment, default: UnreachableWatch()].note(failure) {
                stops[environment] = stop
            }
        }

        mutating func noteAnswer(
            _ response: APNsResponse, from environment: APNsEnvironment, withReplacedToken: Bool
        ) {
            unreachable[environment, default: UnreachableWatch()].noteAnswer()
            guard case .rejected(let rejection, _, _) = response, rejection.refusesProviderToken else {
                credentialsWork = true
                return
            }
            guard withReplacedToken, !credentialsWork else { return }
            refusals =
                refusals.reason == rejection.reason ? (rejection.reason, refusals.count + 1) : (rejection.reason, 1)
            if refusals.count >= PushDelivery.systemicThreshold { credentialStop = .credentials(rejection.reason) }
        }
    }

    private func record(_ failure: TransportFailure, into result: inout DeliveryResult, retriesUsed: inout Int) -> Next
    {
        Self.record(failure, into: &result, retriesUsed: &retriesUsed, retries: policy.retries, service: "APNs")
            ? .resendAfterBackoff : .done
    }

    /// Records a request that got no answer in `result`; whether to resend it after a back-off (a
    /// failure that may pass, with retries left; `retriesUsed` then counts it). An interrupted
    /// request is `unknown`: `service` may have taken it. Shared by every transport's delivery.
    static func record(
        _ failure: TransportFailure, into result: inout DeliveryResult, retriesUsed: inout Int, retries: Int,
        service: String
    ) -> Bool {
        if failure.code != 0 { result.attempts += 1 } // code 0: never handed to the network
        if failure.kind == .interrupted {
            result.outcome = .unknown
            result.status = 0
            result.reason = "no answer before the run was interrupted: \(service) may have delivered it"
            result.transportFailure = .interrupted
            return false
        }
        result.outcome = .failed
        result.status = 0
        result.reason = failure.message
        result.apnsID = nil
        result.transportFailure = failure.kind
        if failure.kind == .tls || failure.code == 0 { return false }
        guard retriesUsed < retries else { return false }
        retriesUsed += 1
        return true
    }

    /// - Parameters:
    ///   - sentWithCurrentToken: whether the request carried the provider token in use now (one sent
    ///     before a replacement is resent with the new token, not counted against the rule).
    ///   - connection: whether a new connection was opened in this run, and whether the request went
    ///     out after it (one sent before is resent on the new connection, not counted against the rule).
    private func record(
        _ response: APNsResponse, answer: HTTP2Answer, into result: inout DeliveryResult, retriesUsed: inout Int,
        switched: inout Bool, tokenReplaced: Bool, sentWithCurrentToken: Bool,
        connection: (replaced: Bool, current: Bool)
    ) -> Next {
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
            case _ where rejection.refusesProviderToken:
                result.outcome = .rejected
                if !sentWithCurrentToken { return .resendNow }
                return tokenReplaced ? .done : .replaceTokenAndResend
            case (403, .unrelatedKeyIDInToken):
                result.outcome = .rejected
                if !connection.current { return .resendNow }
                return connection.replaced ? .done : .openNewConnectionAndResend
            case (400, .badDeviceToken) where result.target.recordedEnvironment == nil && !switched:
                result.outcome = .rejected
                switched = true
                result.environment = result.environment.other
                return .resendNow
            case _ where rejection.isTemporary:
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
