import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

/// Live Activity pushes (`send-push --live-activity`) and the push-to-start tokens of the registry.
@Suite("Live Activities")
struct LiveActivityTests {
    static let start = LiveActivity(
        event: .start, timestamp: 1_700_000_000, contentState: ["step": "compile", "progress": 0],
        attributesType: "BuildAttributes", attributes: ["project": "pushkit"]
    )

    /// A Live Activity push as `send-push` builds it for the app `com.example.app`.
    func build(
        _ activity: LiveActivity, title: String? = nil, body: String? = nil, sound: String? = nil,
        pushType: APNsPushType = .liveactivity
    ) throws -> APNsRequest {
        var spec = PushSpecification()
        spec.pushType = pushType
        spec.content.title = title
        spec.content.body = body
        spec.sound = sound
        spec.content.liveActivity = activity
        return try spec.build(bundleID: "com.example.app").request
    }

    func payload(_ request: APNsRequest) -> String { String(decoding: request.payload, as: UTF8.self) }

    /// The message of the `PayloadError` building `activity` throws, or "no error".
    func refusal(_ activity: LiveActivity, pushType: APNsPushType = .liveactivity) -> String {
        do {
            _ = try build(activity, pushType: pushType)
            return "no error"
        } catch let error as PayloadError {
            #expect(error.exitStatus == .dataError)
            return error.worded(naming: kebabFlag)
        } catch {
            return "unexpected \(error)"
        }
    }

    // MARK: Payloads

    @Test(
        "start: event, timestamp, content state, attributes type and attributes, the alert; push type and topic suffix")
    func startPayload() throws {
        let request = try build(Self.start, title: "Build", body: "started")
        #expect(
            payload(request)
                == #"{"aps":{"alert":{"body":"started","title":"Build"},"attributes":{"project":"pushkit"},"#
                + #""attributes-type":"BuildAttributes","content-state":{"progress":0,"step":"compile"},"event":"start","timestamp":1700000000}}"#
        )
        #expect(request.pushType == .liveactivity)
        #expect(request.topic == "com.example.app.push-type.liveactivity")
        #expect(request.priority == .immediate)
        #expect(
            request.headers(providerToken: "t").contains { $0.name == "apns-push-type" && $0.value == "liveactivity" })
    }

    @Test("update: content state and stale date; a sound goes inside alert, and no default sound is added")
    func updatePayload() throws {
        let update = LiveActivity(
            event: .update, timestamp: 1_700_000_060, contentState: ["progress": 0.5], staleDate: 1_700_000_900)
        #expect(
            payload(try build(update))
                == #"{"aps":{"content-state":{"progress":0.5},"event":"update","stale-date":1700000900,"timestamp":1700000060}}"#
        )
        #expect(
            payload(try build(update, body: "half way", sound: "chime.aiff"))
                == #"{"aps":{"alert":{"body":"half way","sound":"chime.aiff"},"content-state":{"progress":0.5},"event":"update","stale-date":1700000900,"timestamp":1700000060}}"#
        )
    }

    @Test("end: final content state and dismissal date, or nothing but event and timestamp")
    func endPayload() throws {
        let end = LiveActivity(
            event: .end, timestamp: 1_700_000_120, contentState: ["progress": 1], dismissalDate: 1_700_003_720)
        #expect(
            payload(try build(end, title: "Build", body: "done"))
                == #"{"aps":{"alert":{"body":"done","title":"Build"},"content-state":{"progress":1},"dismissal-date":1700003720,"event":"end","timestamp":1700000120}}"#
        )
        #expect(
            payload(try build(LiveActivity(event: .end, timestamp: 0))) == #"{"aps":{"event":"end","timestamp":0}}"#)
    }

    @Test("the timestamp defaults to the injected clock's second; a given one wins")
    func timestampDefault() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_714_564_800.9))
        #expect(LiveActivity(event: .update, contentState: [:], clock: clock).timestamp == 1_714_564_800)
        clock.advance(by: 61)
        #expect(LiveActivity(event: .end, clock: clock).apsMembers["timestamp"] == .number(1_714_564_861))
        #expect(LiveActivity(event: .end, timestamp: 5, clock: clock).timestamp == 5)
    }

    // MARK: Refusals

    @Test("a start needs both attributes flags and a content state")
    func startRefusals() {
        var activity = Self.start
        activity.attributesType = nil
        activity.attributes = nil
        #expect(refusal(activity).contains("--live-activity start needs --attributes-type and --attributes"))
        activity.attributes = ["project": "pushkit"]
        #expect(refusal(activity).contains("--live-activity start needs --attributes-type"))
        activity.attributesType = "BuildAttributes"
        activity.attributes = nil
        #expect(refusal(activity).contains("--live-activity start needs --attributes ("))
        activity = Self.start
        activity.contentState = nil
        #expect(refusal(activity).contains("--live-activity start needs --content-state"))
        activity = Self.start
        activity.attributesType = ""
        #expect(refusal(activity).contains("--attributes-type is empty"))
        #expect(refusal(Self.start) == "no error")
    }

    @Test("an update needs a content state; update and end take no attributes; only end takes a dismissal date")
    func updateAndEndRefusals() {
        #expect(
            refusal(LiveActivity(event: .update, timestamp: 1)).contains("--live-activity update needs --content-state")
        )
        #expect(
            refusal(LiveActivity(event: .end, timestamp: 1, attributes: ["a": 1]))
                .contains("--live-activity end takes no --attributes or --attributes-type"))
        #expect(
            refusal(LiveActivity(event: .end, timestamp: 1, attributesType: "BuildAttributes"))
                .contains("--live-activity end takes no --attributes or --attributes-type"))
        #expect(
            refusal(LiveActivity(event: .update, timestamp: 1, contentState: [:], attributes: ["a": 1]))
                .contains("--live-activity update takes no --attributes"))
        #expect(
            refusal(LiveActivity(event: .update, timestamp: 1, contentState: [:], dismissalDate: 2))
                .contains("--dismissal-date is only for --live-activity end"))
        var start = Self.start
        start.dismissalDate = 2
        #expect(refusal(start).contains("--dismissal-date is only for --live-activity end"))
        #expect(refusal(LiveActivity(event: .end, timestamp: 1, dismissalDate: 2)) == "no error")
    }

    @Test("dates must be 0 or more", arguments: ["timestamp", "stale", "dismissal"])
    func negativeDates(field: String) {
        var end = LiveActivity(event: .end, timestamp: 1)
        switch field {
        case "timestamp": end.timestamp = -1
        case "stale": end.staleDate = -1
        default: end.dismissalDate = -1
        }
        #expect(refusal(end).contains("must be UNIX seconds (0 or more), not -1"))
    }

    @Test("JSON flags must hold a JSON object; the message names the flag")
    func badJSON() throws {
        func message(_ text: String, flag: SendSetting) -> String {
            do throws(PayloadError) {
                _ = try LiveActivity.jsonObject(text, setting: flag)
                return "no error"
            } catch {
                #expect(error.exitStatus == .dataError)
                return error.worded(naming: kebabFlag)
            }
        }
        #expect(message(#"{"progress":"#, flag: .contentState).hasPrefix("--content-state is not valid JSON: line 1"))
        #expect(message("progress=1", flag: .attributes).hasPrefix("--attributes is not valid JSON"))
        #expect(
            message("[1]", flag: .attributes)
                == #"--attributes must be a JSON object such as '{"progress":0.5}', not an array"#)
        #expect(message("3", flag: .contentState).hasSuffix("not a number"))
        #expect(
            try LiveActivity.jsonObject(#" {"a": [1, {"b": null}]} "#, setting: .attributes) == ["a": [1, ["b": nil]]])
    }

    @Test("a Live Activity needs push type liveactivity and cannot ride on a complete payload file")
    func pushTypeAndPayloadFile() throws {
        #expect(refusal(Self.start, pushType: .alert) == "--live-activity needs push type liveactivity, not alert")
        var spec = PushSpecification()
        spec.pushType = .liveactivity
        spec.payloadFile = Data(#"{"aps":{}}"#)
        spec.content.liveActivity = Self.start
        #expect(
            throws: PayloadError.invalid(
                "\(setting: .payloadFile) is a complete payload; it cannot be combined with \(setting: .liveActivity)")
        ) {
            try spec.build(bundleID: "com.example.app")
        }
    }

    // MARK: Push-to-start tokens in the registry

    @Test("push_to_start_token round-trips through the state file; files without it still read; unknown fields survive")
    func stateFileRoundTrip() throws {
        let text = """
            {"version": 1, "devices": {
              "old": {"token": "\(token(1).text)", "environment": "production", "custom": {"x": 1}},
              "new": {"token": "\(token(2).text)", "push_to_start_token": "\(token(0xa2).text.uppercased())", "future": true},
              "none": {"token": "\(token(3).text)", "push_to_start_token": null}}}
            """
        var registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry["old"]?.pushToStartToken == nil)
        #expect(registry["old"]?.otherFields == ["custom": ["x": 1]])
        #expect(registry["new"]?.pushToStartToken == token(0xa2))
        #expect(registry["new"]?.otherFields == ["future": true], "a known field is not also kept as an unknown one")
        #expect(registry["none"]?.pushToStartToken == nil)

        registry.recordDelivery(to: ["old", "new", "none"], at: may1) // every record is written anew
        let written = String(decoding: registry.stateFileBytes(), as: UTF8.self)
        #expect(
            written.contains(
                #""new": {"token":"\#(token(2).text)","push_to_start_token":"\#(token(0xa2).text)","environment":null,"#
            ))
        #expect(written.contains(#""future":true}"#) && written.contains(#""custom":{"x":1}}"#))
        #expect(
            !written.contains(#""old": {"token":"\#(token(1).text)","push_to_start_token""#),
            "absent, not null, when there is none")
        #expect(try RegisteredDevices(stateFile: Data(written.utf8)) == registry)

        let line = String(decoding: DeviceListing.jsonLines(registry.devices.filter { $0.id == "new" }), as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["device_id"] as? String == "new" && object["push_to_start_token"] as? String == token(0xa2).text)
        let imported = try RegisteredDevices(importing: Data(line.utf8))
        #expect(imported["new"]?.pushToStartToken == token(0xa2), "list --json output imports with the token")
    }

    @Test("a malformed push_to_start_token makes the record unreadable, naming the field; the file still reads")
    func malformedToken() throws {
        let text = #"{"version": 1, "devices": {"a": {"token": "\#(token(1).text)", "push_to_start_token": "xyz"}}}"#
        let registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry["a"] == nil)
        let problem = registry.unreadableDevice("a")?.problem ?? ""
        #expect(problem.contains(#""push_to_start_token": device token has "x" at position 1"#), "\(problem)")
        #expect(registry.unreadableDevice("a")?.token == token(1), "the token that reads is kept for listings")
    }

    @Test(
        "registering stores a push-to-start token, keeps it when none is given, and moves it away from another device")
    func registers() throws {
        var registry = RegisteredDevices()
        try registry.register(
            try DeviceRegistration(deviceID: "phone", token: token(1), pushToStartToken: token(0xa1)), at: may1)
        #expect(registry["phone"]?.pushToStartToken == token(0xa1))
        try registry.register(try DeviceRegistration(deviceID: "phone", token: token(11), name: "Sven"), at: may1 + 1)
        #expect(registry["phone"]?.pushToStartToken == token(0xa1), "kept when the registration does not carry one")
        try registry.register(
            try DeviceRegistration(deviceID: "ipad", token: token(2), pushToStartToken: token(0xa1)), at: may1 + 2)
        #expect(registry["ipad"]?.pushToStartToken == token(0xa1))
        #expect(registry["phone"]?.pushToStartToken == nil, "a push-to-start token belongs to one device")
        #expect(registry["phone"]?.token == token(11), "the device itself stays")
    }

    @Test("a request body may carry push_to_start_token")
    func requestBody() throws {
        let parsed = try DeviceRegistration.parseRequestBodies(
            Data(
                #"{"device_token": "phone", "apns_token": "\#(token(1).text)", "push_to_start_token": "\#(token(0xa1).text.uppercased())"}"#
            ),
            source: "body.json")
        #expect(parsed.first?.pushToStartToken == token(0xa1))
        do throws(RegistryError) {
            _ = try DeviceRegistration.parseRequestBodies(
                Data(#"{"device_token": "phone", "apns_token": "\#(token(1).text)", "push_to_start_token": 5}"#),
                source: "body.json")
            Issue.record("a number was accepted as a token")
        } catch {
            #expect(error.description.contains(#""push_to_start_token" must be a string"#))
        }
        do throws(RegistryError) {
            _ = try DeviceRegistration.parseRequestBodies(
                Data(#"{"device_token": "phone", "apns_token": "\#(token(1).text)", "push_to_start_token": "abc"}"#),
                source: "body.json")
            Issue.record("a short token was accepted")
        } catch {
            #expect(error.description.contains(#""push_to_start_token": device token has 3 hex digits"#))
        }
    }

    @Test("410 for a push-to-start token clears only that token, by Apple's timestamp rule; the device stays")
    func clearsPushToStartToken() throws {
        var registry = RegisteredDevices()
        try registry.register(
            try DeviceRegistration(deviceID: "phone", token: token(1), pushToStartToken: token(0xa1)), at: may1)
        let registeredAfter = registry.clearPushToStartTokenIfUnregistered(
            deviceID: "phone", token: token(0xa1), unregisteredAt: may1 - 1)
        let otherToken = registry.clearPushToStartTokenIfUnregistered(
            deviceID: "phone", token: token(0xa2), unregisteredAt: nil)
        let deviceToken = registry.clearPushToStartTokenIfUnregistered(
            deviceID: "phone", token: token(1), unregisteredAt: nil)
        #expect(!registeredAfter, "the app registered after the 410's timestamp")
        #expect(!otherToken && !deviceToken, "only the stored push-to-start token is cleared")
        #expect(registry["phone"]?.pushToStartToken == token(0xa1))
        let cleared = registry.clearPushToStartTokenIfUnregistered(
            deviceID: "phone", token: token(0xa1), unregisteredAt: may1 + 1)
        #expect(cleared)
        #expect(registry["phone"] == DeviceRecord(token: token(1), registeredAt: may1, lastSeenAt: may1))
    }

    @Test("bookkeeping after a start: a 410 clears the push-to-start token, a delivery records no environment")
    func bookkeeping() throws {
        let directory = try makeTemporaryDirectory()
        let store = StateFileRegistry(path: directory + "/devices.json", clock: ManualClock(may1 + 60))
        try store.register([
            try DeviceRegistration(deviceID: "gone", token: token(1), pushToStartToken: token(0xa1)),
            try DeviceRegistration(deviceID: "fresh", token: token(2), pushToStartToken: token(0xa2)),
        ])
        func result(_ id: String, _ startToken: DeviceToken, _ outcome: DeliveryResult.Outcome) -> DeliveryResult {
            var result = DeliveryResult(
                target: DeliveryTarget(
                    deviceID: id, token: startToken, recordedEnvironment: nil, tokenKind: .pushToStart),
                environment: .sandbox)
            result.outcome = outcome
            result.status = outcome == .delivered ? 200 : 410
            result.unregisteredAt = outcome == .delivered ? nil : may1 + 3600
            return result
        }
        var results = [result("gone", token(0xa1), .unregistered), result("fresh", token(0xa2), .delivered)]
        try RegistryBookkeeping.apply(&results, to: store)
        let devices = try store.load()
        #expect(results[0].pruned && !results[1].learnedEnvironment)
        #expect(
            devices["gone"]?.token == token(1) && devices["gone"]?.pushToStartToken == nil,
            "the device and its device token stay")
        #expect(devices["fresh"]?.environment == nil, "a push-to-start answer does not record the device's environment")
        #expect(devices["fresh"]?.lastDeliveredAt == may1 + 60 && devices["fresh"]?.pushToStartToken == token(0xa2))

        var deviceResult = [
            DeliveryResult(
                target: DeliveryTarget(deviceID: "fresh", token: token(2), recordedEnvironment: nil),
                environment: .sandbox)
        ]
        deviceResult[0].outcome = .delivered
        try RegistryBookkeeping.apply(&deviceResult, to: store)
        #expect(
            try store.load()["fresh"]?.environment == .sandbox, "device-token deliveries still learn the environment")
    }

    @Test("the list table shows a masked PUSH-TO-START column only when some device has a token")
    func table() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("laptop", 3), at: may1)
        #expect(!DeviceListing.table(registry.devices, fullTokens: false).contains("PUSH-TO-START"))
        try registry.register(
            try DeviceRegistration(deviceID: "phone", token: token(1), pushToStartToken: token(0xa1)), at: may1)
        let lines = DeviceListing.table(registry.devices, fullTokens: false).split(separator: "\n")
        #expect(lines[0].split(separator: " ").prefix(5) == ["DEVICE", "ID", "TOKEN", "PUSH-TO-START", "ENVIRONMENT"])
        #expect(lines[2].split(separator: " ").prefix(3) == ["phone", token(1).masked[...], token(0xa1).masked[...]])
        #expect(!lines[2].contains(token(0xa1).text))
        #expect(
            lines[1].split(separator: " ").prefix(3) == ["laptop", token(3).masked[...], "-"],
            "a device without one shows -")
        #expect(DeviceListing.table(registry.devices, fullTokens: true).contains(token(0xa1).text))
    }
}

/// A setting named the way the command line spells it (`liveActivity` is `--live-activity`): the
/// core's messages worded as `send-push` words them.
func kebabFlag(_ setting: SendSetting) -> String {
    "--" + setting.rawValue.replacing(/[A-Z]/) { "-" + $0.output.lowercased() }
}
