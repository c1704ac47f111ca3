#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What APNs answered one request: accepted with its ids, or rejected with status and reason.
package enum APNsResponse: Sendable, Equatable {
    /// 200: APNs accepted the notification.
    case accepted(apnsID: String?, uniqueID: String?)
    /// Any other status, with the JSON `reason` and, for 410, the `timestamp` (milliseconds).
    case rejected(APNsRejection, apnsID: String?, timestamp: Date?)

    /// Interprets an HTTP answer from APNs. A body that is not APNs' JSON, or whose reason is empty,
    /// still yields a rejection, with the reason `Unknown<status>`. Control characters in a reason
    /// are escaped (`\u{a}`): reasons are printed one device per line.
    package init(_ answer: HTTP2Answer) {
        let apnsID = answer.headers["apns-id"]
        if answer.status == 200 {
            self = .accepted(apnsID: apnsID, uniqueID: answer.headers["apns-unique-id"])
            return
        }
        let json = try? JSONValue.parse(answer.body)
        let given = json?["reason"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let reason = given.map(Self.escapingControlCharacters) ?? "Unknown\(answer.status)"
        let timestamp = json?["timestamp"]?.numberValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        self = .rejected(
            APNsRejection(status: answer.status, reason: APNsReason(rawValue: reason)), apnsID: apnsID,
            timestamp: timestamp)
    }

    /// `text` with control characters escaped (`\u{a}`), for a reason printed on one line.
    package static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
