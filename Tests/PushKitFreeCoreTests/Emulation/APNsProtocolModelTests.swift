import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("APNs protocol model")
struct APNsProtocolModelTests {
    @Test("eleven push types, raw values as the header, Apple's topic suffixes")
    func pushTypes() {
        #expect(APNsPushType.allCases.count == 11)
        #expect(APNsPushType(rawValue: "liveactivity")?.topic(forBundleID: "com.a") == "com.a.push-type.liveactivity")
        #expect(APNsPushType.voip.topicSuffix == ".voip")
        #expect(APNsPushType.pushtotalk.topicSuffix == ".voip-ptt")
        #expect(APNsPushType.fileprovider.topicSuffix == ".pushkit.fileprovider")
        #expect(APNsPushType.location.topicSuffix == ".location-query")
        #expect(APNsPushType.alert.topicSuffix.isEmpty && APNsPushType.background.topicSuffix.isEmpty)
        #expect(APNsPushType.voip.maximumPayloadSize == 5120 && APNsPushType.alert.maximumPayloadSize == 4096)
    }

    @Test("known reasons carry Apple's status; unknown ones parse and have none")
    func reasons() {
        #expect(APNsReason(rawValue: "BadDeviceToken") == .badDeviceToken)
        #expect(APNsReason.badDeviceToken.status == 400)
        #expect(APNsReason.expiredProviderToken.status == 403)
        #expect(APNsReason.badPath.status == 404)
        #expect(APNsReason.methodNotAllowed.status == 405)
        #expect(APNsReason.unregistered.status == 410)
        #expect(APNsReason.payloadTooLarge.status == 413)
        #expect(APNsReason.tooManyProviderTokenUpdates.status == 429)
        #expect(APNsReason.internalServerError.status == 500)
        #expect(APNsReason.shutdown.status == 503)
        let future = APNsReason(rawValue: "SomethingNew")
        #expect(!future.isKnown && future.status == nil && future.rawValue == "SomethingNew")
        #expect(APNsReason.allKnown.count == 33, "32 in Apple's table plus BadPayload")
        #expect(APNsRejection(.badTopic) == APNsRejection(status: 400, reason: .badTopic))
    }

    @Test("priorities: 10, 5, 1; background allows only 5")
    func priorities() {
        #expect(APNsPriority(rawValue: 7) == nil)
        #expect(APNsPriority.immediate.isAllowed(for: .alert))
        #expect(!APNsPriority.immediate.isAllowed(for: .background))
        #expect(APNsPriority.default(for: .background) == .considerPower)
    }
}

@Suite("emulator fault flags and scripted devices")
struct EmulatorScriptTests {
    @Test("--fail-first and --fail-rate parse N/P:STATUS:REASON")
    func parsesFaults() throws {
        let first = try FailFirstFault(argument: "2:429:TooManyRequests")
        #expect(first.count == 2 && first.failure.rejection == APNsRejection(.tooManyRequests))
        #expect(try FailRateFault(argument: "0.25:503:ServiceUnavailable").probability == 0.25)
        #expect(try FailRateFault(argument: "10%:500:InternalServerError").probability == 0.1)
        #expect(try FailFirstFault(argument: "1:500:MyOwnReason").failure.rejection.reason.rawValue == "MyOwnReason")
    }

    @Test("malformed fault flags are usage errors that say what is expected", arguments: [
        "x:500:InternalServerError", "1:200:OK", "1:500", "1:500:", "-1:500:InternalServerError", "1:abc:Bad", "1:500:Two words",
    ])
    func rejectsFaults(argument: String) {
        #expect(throws: FaultSpecificationError.self) { try FailFirstFault(argument: argument) }
    }

    @Test("fail rates outside 0...1 are refused")
    func rejectsRates() {
        for argument in ["1.5:500:InternalServerError", "150%:500:InternalServerError", "-0.1:500:InternalServerError", "p:500:X"] {
            #expect(throws: FaultSpecificationError.self) { try FailRateFault(argument: argument) }
        }
    }

    @Test("scripted device states answer 410 with the time, or BadDeviceToken; tokens compare case-insensitively")
    func deviceStates() {
        var states = ScriptedDeviceStates()
        #expect(states.answer(for: "abcd") == nil)
        states.unregister("ABCD", at: 1234)
        states.markWrongEnvironment("ef01")
        #expect(states.answer(for: "abcd")?.rejection == APNsRejection(.unregistered))
        #expect(states.answer(for: "abcd")?.timestamp == 1234)
        #expect(states.answer(for: "EF01")?.rejection == APNsRejection(.badDeviceToken))
        let hadState = states.register("abcd")
        #expect(hadState)
        #expect(states.answer(for: "abcd") == nil)
        let hadStateAgain = states.register("abcd")
        #expect(!hadStateAgain)
    }

    @Test("token list files: one token per line, optional time, comments and blanks skipped")
    func tokenList() throws {
        let entries = try ScriptedDeviceStates.parseTokenList("# removed devices\nabcd\n\nef01 1700000000000  # with time\r\n", origin: "f")
        #expect(entries.map(\.token) == ["abcd", "ef01"])
        #expect(entries.map(\.timestamp) == [nil, 1_700_000_000_000])
        #expect(throws: ScriptedDeviceStatesError.self) { try ScriptedDeviceStates.parseTokenList("abc\n", origin: "f") }
        #expect(throws: ScriptedDeviceStatesError.self) { try ScriptedDeviceStates.parseTokenList("abcd soon\n", origin: "f") }
    }
}

@Suite("emulator request record")
struct EmulatorRequestRecordTests {
    @Test("one JSON line with the request's fields, decoded claims and no raw token")
    func jsonLine() throws {
        let token = RequestFixture.token()
        var request = RequestFixture(token: token)
        request.set("apns-priority", "5")
        request.set("apns-collapse-id", "c\"1")
        let assessment = request.assess()
        var record = EmulatorRequestRecord(time: 1_750_000_000_123, connection: 2, stream: 7, method: "POST", path: request.path, assessment: assessment, status: 410, reason: .unregistered)
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
        let record = EmulatorRequestRecord(time: 1_750_000_000_123, connection: 1, stream: 1, method: "POST", path: "/3/device/x", assessment: assessment, status: 200, reason: nil)
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

@Suite("random UUID generator")
struct RandomUUIDGeneratorTests {
    @Test("lowercase canonical version-4 UUIDs that Foundation parses, all different")
    func uuids() {
        var generator = RandomUUIDGenerator()
        var seen = Set<String>()
        for _ in 0..<1000 {
            let text = generator.uuidString()
            #expect(APNsRequest.isCanonicalUUID(text), "\(text)")
            #expect(UUID(uuidString: text)?.uuidString.lowercased() == text)
            let characters = Array(text)
            #expect(characters[14] == "4", "version 4: \(text)")
            #expect("89ab".contains(characters[19]), "RFC 4122 variant: \(text)")
            seen.insert(text)
        }
        #expect(seen.count == 1000)
    }

    @Test("a fixed seed repeats the sequence")
    func seeded() {
        var first = RandomUUIDGenerator(seed: (1, 2, 3, 4)), second = RandomUUIDGenerator(seed: (1, 2, 3, 4))
        #expect(first.uuidString() == second.uuidString())
    }
}
