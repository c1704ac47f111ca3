#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A failure that was the same for every device, after which a run stops sending
/// (`PushDelivery.systemicThreshold`).
package enum DeliveryStop: Sendable, Equatable {
    /// No HTTP answer from that environment's server, only this transport failure (TLS, connect).
    case transport(TransportFailure.Kind, message: String)
    /// APNs refused the provider token, a freshly signed one too: the credentials are wrong.
    case credentials(APNsReason)
    /// FCM refused what every FCM device's send needs: the service account (no access token, or
    /// one it may not send with for the project), or the APNs key uploaded to Firebase. `status` and
    /// `reason` are FCM's answer (0 and the empty reason when no access token could be had);
    /// `message` says what happened and how to fix it.
    case fcm(status: Int, reason: String, message: String)

    /// The failure in words, for the report.
    package var description: String {
        switch self {
        case .transport(_, let message): message
        case .credentials(let reason): "403 \(reason.rawValue)"
        case .fcm(_, _, let message): message
        }
    }
}

/// What happened to one device in a run.
package struct DeliveryResult: Sendable, Equatable {
    /// The outcomes a device can end with.
    package enum Outcome: String, Sendable {
        /// APNs (or FCM) accepted the notification (200).
        case delivered
        /// APNs answered 410 (Unregistered, ExpiredToken), or FCM `UNREGISTERED` or
        /// `INVALID_ARGUMENT` about the token: the token is dead.
        case unregistered
        /// APNs refused it for good (any other 4xx); not retried, token kept.
        case rejected
        /// No success after retries: 429, 5xx, or no HTTP answer (connection, TLS, timeout).
        case failed
        /// Not sent, on purpose: the delivery policy held it back (quiet hours with `skip`, the
        /// frequency cap); `reason` says which. Not a failure.
        case skipped
        /// Not sent: the run stopped sending after a failure that was the same for every device
        /// (an untrusted certificate, a host that cannot be reached, credentials APNs refuses);
        /// `reason` names it. Sending again once it is fixed will try it.
        case notTried = "not_tried"
        /// Not sent, and never will be as asked: an encrypted send to a device without a content
        /// key, which is never sent in clear instead, or a device whose record in the registry
        /// cannot be read; `reason` says which. A failure.
        case refused
        /// Sent, but the run was interrupted (SIGINT, SIGTERM) before an answer came: APNs may
        /// have delivered it or not. Never retried by the run; sending again may deliver it twice.
        case unknown
    }

    /// The device and token the result is for.
    package let target: DeliveryTarget
    /// The environment of the last attempt.
    package var environment: APNsEnvironment
    /// How it ended; `failed` until an answer says otherwise.
    package var outcome: Outcome
    /// The HTTP status of the last answer; 0 when there was none.
    package var status: Int
    /// APNs' reason, or the transport's message when there was no answer.
    package var reason: String?
    /// The `apns-id` of the last answer; `nil` when there was none.
    package var apnsID: String?
    /// For an FCM device FCM accepted the message for: the message's name,
    /// `projects/{project}/messages/{id}`.
    package var fcmName: String?
    /// How many times the request was sent.
    package var attempts: Int
    /// Whether the device was removed from the registry (only for `unregistered`).
    package var pruned = false
    /// For `unregistered`: the device was to be removed, but the registry could not be written
    /// (the message says why); it is still registered, and the next 410 prunes it.
    package var pruneFailure: String?
    /// Whether the environment was recorded in the registry by this run.
    package var learnedEnvironment = false
    /// For `unregistered`: when APNs says the token stopped being valid.
    package var unregisteredAt: Date?
    /// For `failed`: what kind of transport failure, when there was no HTTP answer.
    package var transportFailure: TransportFailure.Kind?
    /// For `notTried`: the failure, the same for every device, that stopped the run.
    package var stoppedBy: DeliveryStop?
    /// What the answer means and what to do, where APNs' reason alone does not say (a key limited
    /// to an environment or to topics, a key the connection is not bound to, an expired token);
    /// see `DeliveryAdvice`. Never holds the key or a provider token.
    package var advice: String?

    /// A result before the first attempt: `failed`, status 0, no attempts.
    package init(target: DeliveryTarget, environment: APNsEnvironment) {
        self.target = target
        self.environment = environment
        outcome = .failed
        status = 0
        attempts = 0
    }

    /// Whether a later run could succeed without anything changing: 429, 5xx, lost connections,
    /// timeouts. TLS failures are not temporary (a certificate does not fix itself).
    package var isTemporaryFailure: Bool {
        guard outcome == .failed else { return false }
        if status == 0 { return transportFailure != .tls }
        return status == 429 || status >= 500
    }
}
