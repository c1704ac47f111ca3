#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What APNs answered one request: accepted with its ids, or rejected with status and reason.
public enum APNsResponse: Sendable, Equatable {
    /// 200: APNs accepted the notification.
    case accepted(apnsID: String?, uniqueID: String?)
    /// Any other status, with the JSON `reason` and, for 410, the `timestamp` (milliseconds).
    case rejected(APNsRejection, apnsID: String?, timestamp: Date?)

    /// Interprets an HTTP answer from APNs. A body that is not APNs' JSON still yields a rejection,
    /// with the reason `unknown(<status>)`.
    public init(_ answer: HTTP2Answer) {
        let apnsID = answer.headers["apns-id"]
        if answer.status == 200 {
            self = .accepted(apnsID: apnsID, uniqueID: answer.headers["apns-unique-id"])
            return
        }
        let json = try? JSONValue.parse(answer.body)
        let reason = json?["reason"]?.stringValue ?? "Unknown\(answer.status)"
        let timestamp = json?["timestamp"]?.numberValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        self = .rejected(APNsRejection(status: answer.status, reason: APNsReason(rawValue: reason)), apnsID: apnsID, timestamp: timestamp)
    }
}
