import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

@Suite("emulator request record")
struct EmulatorRequestRecordTests {
    @Test("one JSON line with the request's fields, decoded claims and no raw token")
    func jsonLine() throws {
        let token = RequestFixture.token()
        var request = RequestFixture(token: token)
        request.set("apns-priority", "5")
        request.set("apns-collapse-id", "c\"1")
        let assessment = request.assess()
        var record = EmulatorRequestRecord(
            time: 1_750_000_000_123, connection: 2, stream: 7, method: "POST", path: request.path,
            assessment: assessment, status: 410, reason: .unregistered)
        record.timestamp = 1_700_000_000_000
        record.apnsID = "123e4567-e89b-12d3-a456-426614174000"
        let line = String(decoding: record.jsonLine(), as: UTF8.self)
        #expect(line.hasSuffix("}\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        #expect(!line.contains(token))
        #expect(!line.contains(String(token.split(separator: ".")[2])))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2025-06-15T15:06:40.123Z")
        #expect(object["device_token"] as? String == RequestFixture.deviceToken)
        #expect(object["topic"] as? String == "com.example.app")
        #expect(object["push_type"] as? String == "alert")
        #expect(object["priority"] as? Int == 5)
        #expect(object["collapse_id"] as? String == "c\"1")
        #expect(object["apns_id"] as? String == "123e4567-e89b-12d3-a456-426614174000")
        #expect((object["payload"] as? [String: Any])?["aps"] != nil)
        #expect(object["payload_bytes"] as? Int == request.body.count)
        #expect(object["status"] as? Int == 410)
        #expect(object["reason"] as? String == "Unregistered")
        #expect(object["timestamp"] as? Int == 1_700_000_000_000)
        let provider = try #require(object["provider_token"] as? [String: Any])
        #expect((provider["claims"] as? [String: Any])?["iss"] as? String == RequestFixture.teamID)
        #expect((provider["header"] as? [String: Any])?["kid"] as? String == RequestFixture.keyID)
        #expect(object["connection"] as? Int == 2 && object["stream"] as? Int == 7)
    }

    @Test("the summary is one line with status, reason, type, token and payload")
    func summary() {
        let assessment = RequestFixture().assess()
        let record = EmulatorRequestRecord(
            time: 1_750_000_000_123, connection: 1, stream: 1, method: "POST", path: "/3/device/x",
            assessment: assessment, status: 200, reason: nil)
        let summary = record.summary()
        #expect(summary == "15:06:40.123 200 alert abababab…abababab com.example.app {\"aps\":{\"alert\":\"Hello\"}}\n")
    }

    @Test("timestamps are UTC ISO 8601 with milliseconds")
    func timestamps() {
        #expect(UTCTimestamp.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(milliseconds: 951_782_400_007) == "2000-02-29T00:00:00.007Z")
        #expect(UTCTimestamp.clockTime(milliseconds: 951_782_400_007) == "00:00:00.007")
    }
}
