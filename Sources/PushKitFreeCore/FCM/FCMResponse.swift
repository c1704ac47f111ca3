#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What FCM answered one `messages:send`: accepted with the message's name, or rejected.
package enum FCMResponse: Sendable, Equatable {
    /// 200 `{"name": "projects/{project}/messages/{message id}"}`.
    case accepted(name: String)
    /// Any other status, with what its `error` object said.
    case rejected(FCMRejection)

    /// Interprets an HTTP answer from FCM. A 200 without a name is still accepted (with an empty
    /// name): FCM took the message. A body that is not Google's error JSON still yields a
    /// rejection, with the reason `Unknown<status>`.
    package init(_ answer: HTTP2Answer) {
        let json = try? JSONValue.parse(answer.body)
        if answer.status == 200 {
            self = .accepted(name: json?["name"]?.stringValue.map(APNsResponse.escapingControlCharacters) ?? "")
            return
        }
        self = .rejected(FCMRejection(answer: answer, error: json?["error"]))
    }

    /// What the answer means for the device and the run.
    package var outcome: FCMOutcome {
        switch self {
        case .accepted(let name): .delivered(name: name)
        case .rejected(let rejection): rejection.outcome
        }
    }
}

/// An FCM error answer: HTTP status, reason, Google's message, the kinds of detail it carried and
/// `Retry-After`.
package struct FCMRejection: Sendable, Equatable, CustomStringConvertible {
    /// The `@type` of the detail that carries FCM's own error code.
    package static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// The `@type` of the detail that names the message's fields at fault.
    package static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// The HTTP status, e.g. 404.
    package let status: Int
    /// The FcmError `errorCode`, else the error's `status`, else `Unknown<status>`.
    package let reason: FCMReason
    /// Google's `message`, control characters escaped; `nil` when there was none.
    package let message: String?
    /// Whether a `google.firebase.fcm.v1.FcmError` detail came with the error.
    package let hasFCMErrorDetail: Bool
    /// Whether a `google.rpc.BadRequest` detail (fields of the message at fault) came with it.
    package let hasBadRequestDetail: Bool
    /// `Retry-After` in seconds, when given as a number of seconds.
    package let retryAfter: Int?

    /// A rejection from its parts (tests, and the emulator's scripted answers).
    package init(
        status: Int, reason: FCMReason, message: String? = nil, hasFCMErrorDetail: Bool = false,
        hasBadRequestDetail: Bool = false, retryAfter: Int? = nil
    ) {
        self.status = status
        self.reason = reason
        self.message = message
        self.hasFCMErrorDetail = hasFCMErrorDetail
        self.hasBadRequestDetail = hasBadRequestDetail
        self.retryAfter = retryAfter
    }

    /// Reads `{"code", "message", "status", "details": [...]}` from an answer.
    init(answer: HTTP2Answer, error: JSONValue?) {
        let details = error?["details"]?.arrayValue ?? []
        let fcmError = details.first { $0["@type"]?.stringValue == Self.fcmErrorType }
        let code = fcmError?["errorCode"]?.stringValue ?? error?["status"]?.stringValue
        let reason = code.flatMap { $0.isEmpty ? nil : APNsResponse.escapingControlCharacters($0) }
        self.init(
            status: answer.status, reason: FCMReason(rawValue: reason ?? "Unknown\(answer.status)"),
            message: error?["message"]?.stringValue.map(APNsResponse.escapingControlCharacters),
            hasFCMErrorDetail: fcmError != nil,
            hasBadRequestDetail: details.contains { $0["@type"]?.stringValue == Self.badRequestType },
            retryAfter: answer.headers["retry-after"].flatMap(Self.seconds))
    }

    /// Status, reason and Google's message, e.g. `404 UNREGISTERED: Requested entity was not found.`
    package var description: String {
        "\(status) \(reason)" + (message.map { ": \($0)" } ?? "")
    }

    /// What the rejection means.
    ///
    /// `INVALID_ARGUMENT` is the one reason Google uses for a bad token and for a bad message. The
    /// token is taken for dead only when the answer says FCM's own code (an FcmError detail) and
    /// names no field of the message (no BadRequest detail); with a BadRequest detail, or no detail,
    /// it is a bad message, and the token is kept: a token is pruned only when the answer leaves no
    /// doubt. A reason's status decides when the reason alone does not (an unknown reason with 429
    /// or 5xx is retried).
    package var outcome: FCMOutcome {
        switch reason {
        case .unregistered: return .deadToken
        case .invalidArgument:
            return hasFCMErrorDetail && !hasBadRequestDetail ? .deadToken : .badMessage
        case .senderIDMismatch: return .wrongProject
        case .thirdPartyAuthError, .permissionDenied: return .systemic
        case .unauthenticated: return .refreshAccessToken
        case .quotaExceeded, .resourceExhausted, .unavailable, .internal: return .retry(retryAfter: retryAfter)
        default: break
        }
        if status == 429 || status >= 500 { return .retry(retryAfter: retryAfter) }
        if status == 401 { return .refreshAccessToken }
        return .failed
    }

    /// A `Retry-After` of delay-seconds (RFC 9110 §10.2.3); `nil` for an HTTP date or anything else.
    static func seconds(_ text: String) -> Int? {
        let digits = text.trimmingWhitespace
        guard !digits.isEmpty, digits.utf8.count <= 9, digits.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        return Int(digits)
    }
}
