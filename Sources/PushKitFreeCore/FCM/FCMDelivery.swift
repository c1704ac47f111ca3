#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends one notification to FCM devices, `POST {fcm_url}/v1/projects/{project}/messages:send`
/// once per device, as a `DeliveryLane` beside the APNs delivery (or alone), and acts on every
/// answer as `PushDelivery` does on APNs':
/// - 200: delivered, FCM's message name kept.
/// - `UNREGISTERED`, or `INVALID_ARGUMENT` about the token: unregistered (pruned by the same rules
///   as an APNs 410, dated when the request was sent).
/// - `INVALID_ARGUMENT` about the message, `SENDER_ID_MISMATCH` (the message names the project),
///   anything else: rejected, never retried, the token kept.
/// - `UNAUTHENTICATED`: a new access token, once per run, and the request sent again.
/// - `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL` (429, 503, 500), a lost connection, a timeout:
///   resent with the policy's back-off, never before FCM's `Retry-After`, within the run's time.
///
/// A failure that is the same for every FCM device stops sending to FCM, reported once: no access
/// token at all, `PERMISSION_DENIED` (the service account may not send for the project),
/// `THIRD_PARTY_AUTH_ERROR` before FCM accepted anything in the run (Apple refused the APNs key
/// uploaded to Firebase), a refreshed access token refused again, or the same TLS or connect
/// failure `PushDelivery.systemicThreshold` times in a row before any answer. The devices not sent
/// to end `notTried`. (A `THIRD_PARTY_AUTH_ERROR` after FCM accepted a message concerns only the
/// iOS devices behind FCM, so it rejects that device only: the Android ones still get theirs.)
package final class FCMDelivery: DeliveryLane {
    private let targets: [DeliveryTarget]
    private let message: (Int) -> Result<Data, any Error>
    private let url: String
    private let project: String
    private let tokens: FCMAccessTokens
    private let policy: DeliveryPolicy
    private let deadline: ContinuousClock.Instant
    private let jitter: () -> Double
    private let interruption: RunInterruption?
    private let onFinished: (Int, DeliveryResult) -> Void

    private var results: [DeliveryResult]
    private var retriesUsed: [Int]
    private var sentWith: [String]
    private var sentAt: [Date]
    private var accessToken: String?
    private var tokenReplaced = false
    private var queue: SendQueue
    private var stop: DeliveryStop?
    private var stopAdvice: String?
    private var accepted = false
    private var unreachable = UnreachableWatch()

    /// A delivery to `targets` (FCM tokens), each with its message's body.
    /// - Parameters:
    ///   - message: the `FCMMessage` body for the target at an index, or why there is none (a push
    ///     type FCM cannot carry, a reserved data key, a payload over FCM's limit): such a device is
    ///     `refused` with that message and sent nothing. Built as each request goes out (again for a
    ///     resend), so a fan-out holds only the bodies in flight.
    ///   - baseURL: `fcm_url`.
    ///   - tokens: the access tokens; the first is asked for now, and when none can be had every
    ///     device ends `notTried` with the reason.
    ///   - defaultEnvironment: the `environment` the results carry (FCM has none; reports show the
    ///     transport instead).
    ///   - onFinished: told each device's index and result as soon as it is done with.
    package init(
        targets: [DeliveryTarget], message: @escaping (Int) -> Result<Data, any Error>, baseURL: String,
        tokens: FCMAccessTokens, policy: DeliveryPolicy, deadline: ContinuousClock.Instant,
        defaultEnvironment: APNsEnvironment, jitter: @escaping () -> Double = { Double.random(in: 0..<1) },
        interruption: RunInterruption? = nil, onFinished: @escaping (Int, DeliveryResult) -> Void = { _, _ in }
    ) {
        self.targets = targets
        self.tokens = tokens
        self.policy = policy
        self.deadline = deadline
        self.jitter = jitter
        self.interruption = interruption
        self.onFinished = onFinished
        project = tokens.account.projectID
        url = Self.sendURL(baseURL: baseURL, project: project)
        results = targets.map { DeliveryResult(target: $0, environment: defaultEnvironment) }
        retriesUsed = Array(repeating: 0, count: targets.count)
        sentWith = Array(repeating: "", count: targets.count)
        sentAt = Array(repeating: Date(timeIntervalSince1970: 0), count: targets.count)
        self.message = message
        queue = SendQueue(count: targets.count)
        guard !targets.isEmpty else { return }
        do {
            accessToken = try tokens.current()
        } catch {
            stop = .fcm(status: 0, reason: "", message: error.message)
        }
    }

    /// `{fcm_url}/v1/projects/{project}/messages:send`.
    package static func sendURL(baseURL: String, project: String) -> String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/v1/projects/\(project)/messages:send"
    }

    package func next(at now: ContinuousClock.Instant) -> HTTP2RequestSupply {
        guard stop == nil, interruption?.signal == nil, let accessToken else { return .exhausted }
        while true {
            let index: Int
            switch queue.next(at: now, deadline: deadline) {
            case .send(let due): index = due
            case .wait(let supply): return supply
            }
            switch message(index) {
            case .failure(let error):
                results[index].outcome = .refused
                results[index].reason = "\(error)"
                onFinished(index, results[index])
            case .success(let body):
                sentWith[index] = accessToken
                sentAt[index] = Date()
                return .request(
                    HTTP2Request(
                        url: url,
                        headers: [
                            ("authorization", "Bearer \(accessToken)"),
                            ("content-type", "application/json; charset=utf-8"),
                        ],
                        body: body, tag: index))
            }
        }
    }

    package func handle(_ response: HTTP2Response) {
        let index = response.tag
        switch response.result {
        case .failure(let failure):
            if let transportStop = unreachable.note(failure), stop == nil { stop = transportStop }
            if failure.kind == .tls {
                results[index].advice =
                    "FCM's server certificate is not trusted here: a server with a CA of its own (the emulator, a "
                    + "proxy that inspects TLS) needs ca_file or APNS_CA_FILE, which FCM's addresses trust too"
            }
            if PushDelivery.record(
                failure, into: &results[index], retriesUsed: &retriesUsed[index], retries: policy.retries,
                service: "FCM")
            {
                queue.resend(index, after: policy.backoff(beforeRetry: retriesUsed[index], jitter: jitter()))
            } else {
                onFinished(index, results[index])
            }
        case .success(let answer):
            unreachable.noteAnswer()
            results[index].attempts += 1
            results[index].status = answer.status
            results[index].transportFailure = nil
            if record(FCMResponse(answer), for: index) { onFinished(index, results[index]) }
        }
    }

    /// Records an answer; whether the device is done with (else it is resent).
    private func record(_ response: FCMResponse, for index: Int) -> Bool {
        guard case .rejected(let rejection) = response else {
            if case .accepted(let name) = response { results[index].fcmName = name }
            results[index].outcome = .delivered
            results[index].reason = nil
            accepted = true
            return true
        }
        results[index].reason = rejection.reason.rawValue + (rejection.message.map { ": \($0)" } ?? "")
        results[index].outcome = .rejected
        switch rejection.outcome {
        case .delivered:
            return true // an error answer is never a delivery
        case .deadToken:
            results[index].outcome = .unregistered
            results[index].unregisteredAt = sentAt[index]
        case .badMessage, .failed:
            break
        case .wrongProject:
            results[index].advice =
                "the token belongs to another Firebase project than \(project), the service account's: "
                + "send with that project's service account (fcm_service_account)"
        case .systemic:
            let fix =
                rejection.reason == .thirdPartyAuthError
                ? "Apple refused the APNs key uploaded to Firebase for this app: upload the .p8 key in the Firebase "
                    + "console (Project settings, Cloud Messaging, Apple app configuration)"
                : "the service account may not send messages for project \(project): give it the Firebase Cloud "
                    + "Messaging API Admin role, and enable the FCM API for the project"
            results[index].advice = fix
            // After FCM accepted a message, an APNs key refusal concerns only the iOS devices behind FCM.
            if rejection.reason != .thirdPartyAuthError || !accepted { stopSending(rejection, fix: fix) }
        case .refreshAccessToken:
            guard sentWith[index] == accessToken else {
                queue.resend(index)
                return false
            }
            guard !tokenReplaced else {
                let fix = "FCM refused a freshly issued access token for project \(project): check the service account"
                results[index].advice = fix
                stopSending(rejection, fix: fix)
                return true
            }
            do {
                accessToken = try tokens.replacement(for: sentWith[index])
                tokenReplaced = true
                queue.resend(index)
                return false
            } catch {
                stop = .fcm(status: 0, reason: "", message: error.message)
            }
        case .retry(let retryAfter):
            results[index].outcome = .failed
            guard retriesUsed[index] < policy.retries else { return true }
            retriesUsed[index] += 1
            var delay = policy.backoff(beforeRetry: retriesUsed[index], jitter: jitter())
            if let retryAfter { delay = max(delay, .seconds(retryAfter)) }
            if ContinuousClock.now + delay >= deadline {
                results[index].reason! += " (FCM asked to wait \(retryAfter ?? 0) s, past the run's time limit)"
                return true
            }
            queue.resend(index, after: delay)
            return false
        }
        return true
    }

    /// Stops sending to FCM after `rejection`, the same for every device; the devices not sent to
    /// get `fix` as their advice.
    private func stopSending(_ rejection: FCMRejection, fix: String) {
        guard stop == nil else { return }
        stop = .fcm(
            status: rejection.status, reason: rejection.reason.rawValue,
            message: "FCM answered \(rejection.status) \(rejection.reason.rawValue)")
        stopAdvice = fix
    }

    /// The results, one per target in the targets' order, once the transport loop is over: the
    /// devices not sent to are `notTried` (after a stop or an interrupt) or failed at the timeout.
    package func finish() -> [DeliveryResult] {
        for index in results.indices where results[index].attempts == 0 && results[index].outcome == .failed {
            if let stop {
                results[index].outcome = .notTried
                results[index].reason = stop.description
                results[index].stoppedBy = stop
                results[index].advice = stopAdvice
                if case .transport(let kind, _) = stop { results[index].transportFailure = kind }
            } else if interruption?.signal != nil, results[index].status == 0, results[index].reason == nil {
                results[index].outcome = .notTried
                results[index].reason = "not sent: the run was interrupted"
            }
        }
        for index in results.indices
        where results[index].outcome == .failed && results[index].status == 0 && results[index].reason == nil {
            results[index].reason = "not sent before the timeout"
            results[index].transportFailure = .timeout
        }
        return results
    }
}
