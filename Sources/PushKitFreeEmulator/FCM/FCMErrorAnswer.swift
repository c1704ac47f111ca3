import PushKitFreeCore

/// An error answer of the FCM HTTP v1 API in Google's shape:
/// `{"error": {"code", "message", "status", "details": [...]}}`.
///
/// A problem with the registration token carries an FcmError detail (`errorCode`); a problem with
/// the message carries a `google.rpc.BadRequest` detail naming the field, so a client can tell a
/// dead token from a bad message, as Google's documentation asks it to.
package struct FCMErrorAnswer: Sendable, Equatable, Error {
    /// What the `details` array holds.
    package enum Detail: Sendable, Equatable {
        /// No detail (401 `UNAUTHENTICATED`, 403 `PERMISSION_DENIED`, 404 for an unknown route).
        case none
        /// `type.googleapis.com/google.firebase.fcm.v1.FcmError` with this `errorCode`.
        case fcmError(String)
        /// `type.googleapis.com/google.rpc.BadRequest` with one field violation.
        case badRequest(field: String?)
    }

    /// The HTTP status, also `error.code`.
    package var code: Int
    /// `error.status`, the canonical gRPC code name (`INVALID_ARGUMENT`, `UNAUTHENTICATED`, ...).
    package var status: String
    /// `error.message`, in Google's words where the emulator knows them.
    package var message: String
    /// The detail.
    package var detail: Detail
    /// Seconds for a `Retry-After` header (429 and 503 answers).
    package var retryAfter: Int?

    /// An answer with `code`, `status`, `message` and `detail`.
    package init(code: Int, status: String, message: String, detail: Detail, retryAfter: Int? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// A bad message: 400 `INVALID_ARGUMENT` with a `BadRequest` detail naming `field`.
    package static func badMessage(_ message: String, field: String?) -> FCMErrorAnswer {
        FCMErrorAnswer(code: 400, status: "INVALID_ARGUMENT", message: message, detail: .badRequest(field: field))
    }

    /// The FcmError `errorCode`, when the answer carries one.
    package var errorCode: String? {
        if case .fcmError(let code) = detail { return code }
        return nil
    }

    /// The answer for a registration token scripted (or judged) to answer `step`, an error code
    /// with the HTTP status and canonical code Google's documentation gives for it; `nil` for an
    /// unknown code. The codes answered with `Retry-After` (`QUOTA_EXCEEDED`, 60 s, and
    /// `UNAVAILABLE`, 10 s) take another number of seconds as `CODE:SECONDS`.
    package static func scripted(_ step: String) -> FCMErrorAnswer? {
        let parts = step.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard var answer = scripted(code: String(parts[0])) else { return nil }
        if parts.count == 2 {
            guard answer.retryAfter != nil, let seconds = Int(parts[1]), (0...86_400).contains(seconds) else {
                return nil
            }
            answer.retryAfter = seconds
        }
        return answer
    }

    private static func scripted(code errorCode: String) -> FCMErrorAnswer? {
        switch errorCode {
        case "UNREGISTERED":
            FCMErrorAnswer(
                code: 404, status: "NOT_FOUND", message: "Requested entity was not found.",
                detail: .fcmError(errorCode))
        case "INVALID_ARGUMENT":
            FCMErrorAnswer(
                code: 400, status: "INVALID_ARGUMENT",
                message: "The registration token is not a valid FCM registration token", detail: .fcmError(errorCode))
        case "SENDER_ID_MISMATCH":
            FCMErrorAnswer(
                code: 403, status: "PERMISSION_DENIED", message: "SenderId mismatch", detail: .fcmError(errorCode))
        case "QUOTA_EXCEEDED":
            FCMErrorAnswer(
                code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded for the device.",
                detail: .fcmError(errorCode), retryAfter: 60)
        case "UNAVAILABLE":
            FCMErrorAnswer(
                code: 503, status: "UNAVAILABLE", message: "The service is currently unavailable.",
                detail: .fcmError(errorCode), retryAfter: 10)
        case "INTERNAL":
            FCMErrorAnswer(
                code: 500, status: "INTERNAL", message: "Internal error encountered.", detail: .fcmError(errorCode))
        case "THIRD_PARTY_AUTH_ERROR":
            FCMErrorAnswer(
                code: 401, status: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
                detail: .fcmError(errorCode))
        default:
            nil
        }
    }

    /// The error codes `scripted(_:)` knows, for `--script-file` and its errors.
    package static let scriptableCodes = [
        "UNREGISTERED", "INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL",
        "THIRD_PARTY_AUTH_ERROR",
    ]

    /// The JSON body.
    package func body() -> [UInt8] {
        var details: [JSONValue] = []
        switch detail {
        case .none:
            break
        case .fcmError(let errorCode):
            details.append(
                .object([
                    "@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                    "errorCode": .string(errorCode),
                ]))
        case .badRequest(let field):
            var violation: [String: JSONValue] = ["description": .string(message)]
            if let field { violation["field"] = .string(field) }
            details.append(
                .object([
                    "@type": .string("type.googleapis.com/google.rpc.BadRequest"),
                    "fieldViolations": .array([.object(violation)]),
                ]))
        }
        var error: [String: JSONValue] = [
            "code": .number(Double(code)), "message": .string(message), "status": .string(status),
        ]
        if !details.isEmpty { error["details"] = .array(details) }
        return Array(JSONValue.object(["error": .object(error)]).serialized())
    }
}
