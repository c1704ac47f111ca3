import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("APNs response bodies")
struct APNsResponseTests {
    func rejection(_ body: String, status: Int = 400) -> (reason: String, timestamp: Date?) {
        guard
            case .rejected(let rejection, _, let timestamp) = APNsResponse(
                HTTP2Answer(status: status, headers: [:], body: Data(body.utf8)))
        else {
            Issue.record("a \(status) answer was read as accepted")
            return ("", nil)
        }
        return (rejection.reason.rawValue, timestamp)
    }

    @Test("reads the reason and a 410's timestamp in milliseconds")
    func readsReasonAndTimestamp() {
        #expect(rejection(#"{"reason":"BadDeviceToken"}"#).reason == "BadDeviceToken")
        let gone = rejection(#"{"reason":"Unregistered","timestamp":1714564800500}"#, status: 410)
        #expect(gone.reason == "Unregistered")
        #expect(gone.timestamp == Date(timeIntervalSince1970: 1_714_564_800.5))
    }

    @Test("a body without a usable reason reads as Unknown<status>")
    func unknownReason() {
        #expect(rejection("<html>502 Bad Gateway</html>", status: 502).reason == "Unknown502")
        #expect(rejection(#"{"reason":429}"#, status: 429).reason == "Unknown429")
        #expect(rejection(#"{"reason":""}"#).reason == "Unknown400")
    }

    @Test(
        "control characters in a reason are escaped, so send-push still prints one line per device (found by fuzz-apns-error)"
    )
    func escapesControlCharacters() {
        let reason = rejection(#"{"reason":"Un\ngistered\r\u0000\u007f"}"#).reason
        #expect(reason == #"Un\u{a}gistered\u{d}\u{0}\u{7f}"#)
        var result = DeliveryResult(
            target: DeliveryTarget(
                deviceID: "phone", token: try! DeviceToken(validating: String(repeating: "ab", count: 32)),
                recordedEnvironment: .production), environment: .production)
        result.outcome = .rejected
        result.status = 400
        result.reason = reason
        #expect(
            DeliveryReport(results: [result], seconds: 1).lines(fullTokens: false).split(separator: "\n").count == 1)
    }
}
