/// Why FCM refused a message: the `errorCode` of the answer's `FcmError` detail when there is one,
/// else the error's `status` (a `google.rpc.Code` name such as `UNAUTHENTICATED`).
///
/// Known reasons are static values that carry the HTTP status Google documents for them. A reason
/// this version does not know still parses (`init(rawValue:)` never fails) and reports no `status`,
/// so a new one is shown as it is rather than lost.
package struct FCMReason: ProviderReason {
    /// The reason as it appears in the answer, e.g. `UNREGISTERED`.
    package let rawValue: String

    /// A reason from its text; never fails, an unknown reason is kept as it is.
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    // MARK: FcmError codes (google.firebase.fcm.v1.FcmError)
    /// No more information (500 and others).
    package static let unspecifiedError = FCMReason(rawValue: "UNSPECIFIED_ERROR")
    /// A request parameter is not valid (400): the token, when it is the only detail, else the message.
    package static let invalidArgument = FCMReason(rawValue: "INVALID_ARGUMENT")
    /// The app instance was unregistered from FCM (404): the token is no longer valid.
    package static let unregistered = FCMReason(rawValue: "UNREGISTERED")
    /// The token belongs to another Firebase project than the one sent for (403).
    package static let senderIDMismatch = FCMReason(rawValue: "SENDER_ID_MISMATCH")
    /// Sending limit exceeded (429): the project's, a device's or a topic's; honour `Retry-After`.
    package static let quotaExceeded = FCMReason(rawValue: "QUOTA_EXCEEDED")
    /// The server is overloaded (503): retry with back-off, honouring `Retry-After`.
    package static let unavailable = FCMReason(rawValue: "UNAVAILABLE")
    /// An unknown internal error (500): retry with back-off.
    package static let `internal` = FCMReason(rawValue: "INTERNAL")
    /// The APNs certificate or authentication key uploaded to Firebase was not valid or missing
    /// (401): Apple refused it for this app, so no iOS device of the project can be reached.
    package static let thirdPartyAuthError = FCMReason(rawValue: "THIRD_PARTY_AUTH_ERROR")

    // MARK: google.rpc statuses without an FcmError detail
    /// The access token is missing, expired or not valid (401).
    package static let unauthenticated = FCMReason(rawValue: "UNAUTHENTICATED")
    /// The service account may not send for this project, or the FCM API is not enabled (403).
    package static let permissionDenied = FCMReason(rawValue: "PERMISSION_DENIED")
    /// The project or the resource in the URL does not exist (404).
    package static let notFound = FCMReason(rawValue: "NOT_FOUND")
    /// A quota ran out (429).
    package static let resourceExhausted = FCMReason(rawValue: "RESOURCE_EXHAUSTED")

    /// The reasons Google documents, each with the HTTP status it comes with.
    package static let statuses: [String: Int] = [
        "UNSPECIFIED_ERROR": 500, "INVALID_ARGUMENT": 400, "UNREGISTERED": 404, "SENDER_ID_MISMATCH": 403,
        "QUOTA_EXCEEDED": 429, "UNAVAILABLE": 503, "INTERNAL": 500, "THIRD_PARTY_AUTH_ERROR": 401,
        "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "NOT_FOUND": 404, "RESOURCE_EXHAUSTED": 429,
    ]
}
