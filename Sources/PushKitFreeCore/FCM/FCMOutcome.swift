/// What one FCM answer means for the device and the run, as `DeliveryResult.Outcome` and
/// `APNsRejection` say it for APNs.
package enum FCMOutcome: Sendable, Equatable {
    /// 200: FCM accepted the message; `name` is `projects/{project}/messages/{message id}`.
    case delivered(name: String)
    /// The token is dead (`UNREGISTERED`, or `INVALID_ARGUMENT` about the token): pruned by the
    /// same rules as an APNs 410.
    case deadToken
    /// FCM refused the message itself (`INVALID_ARGUMENT` about a field): failed, the token kept.
    case badMessage
    /// The token belongs to another Firebase project (`SENDER_ID_MISMATCH`): failed, the token kept,
    /// since it is a valid token of the wrong project.
    case wrongProject
    /// A refusal that is the same for every device: `THIRD_PARTY_AUTH_ERROR` (Apple refused the APNs
    /// key uploaded to Firebase) or `PERMISSION_DENIED` (the service account may not send for the
    /// project). The run stops sending with the fix, once.
    case systemic
    /// The access token was refused (`UNAUTHENTICATED`): fetch a new one and send again, once.
    case refreshAccessToken
    /// A temporary refusal (429, 500, 503): send again later, not before `retryAfter` seconds when
    /// FCM said so.
    case retry(retryAfter: Int?)
    /// Any other refusal: failed, the token kept.
    case failed
}
