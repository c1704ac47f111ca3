import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("registry: FCM registration tokens beside APNs tokens")
struct RegistryFCMTests {
    func parse(
        _ text: String, defaults: DeviceRegistration.Defaults = .init()
    ) throws(RegistrationBodyError) -> DeviceRegistration {
        guard let body = try? JSONValue.parse(Data(text)) else { throw .invalidBody("not JSON: \(text)") }
        return try DeviceRegistration.registration(fromBody: body, defaults: defaults)
    }

    @Test("a body's token is told by its shape; an FCM token alone gets an fcm- id; environment is ignored for it")
    func bodyRecognizesFCM() throws {
        let fcm = fcmToken(1)
        let keyed = try parse(#"{"device_token": "\#(fcm.text)", "environment": "sandbox", "device_name": "Pixel"}"#)
        #expect(keyed.token == fcm && keyed.token.transport == .fcm && keyed.environment == nil)
        #expect(keyed.deviceID == "fcm-" + HexDigest.sha256(fcm.text).prefix(16) && keyed.name == "Pixel")
        let named = try parse(#"{"device_token": "pixel", "apns_token": "\#(fcm.text)", "transport": "fcm"}"#)
        #expect(named.deviceID == "pixel" && named.token == fcm)
        let apns = try parse(#"{"device_token": "phone", "apns_token": "\#(token(1).text)", "transport": "apns"}"#)
        #expect(apns.token == token(1) && apns.token.transport == .apns)
        #expect(
            throws: RegistrationBodyError.invalidBody("\"environment\" must be production or sandbox, not \"staging\""),
            "a hint is checked all the same"
        ) { try parse(#"{"device_token": "\#(fcm.text)", "environment": "staging"}"#) }
        #expect(
            try parse(#"{"device_token": "\#(fcm.text)"}"#, defaults: .init(environment: .sandbox)).environment == nil)
    }

    @Test("a stated transport the token's shape contradicts is a token error naming the member or the flag")
    func statedTransportMismatch() {
        let cases: [(String, DeviceRegistration.Defaults, RegistrationBodyError)] = [
            (
                #"{"device_token": "phone", "apns_token": "\#(token(1).text)", "transport": "fcm"}"#, .init(),
                .invalidToken("\"transport\" is fcm, but the token is an APNs device token")
            ),
            (
                #"{"device_token": "\#(fcmToken(1).text)", "transport": "apns"}"#, .init(),
                .invalidToken("\"transport\" is apns, but the token is an FCM registration token")
            ),
            (
                #"{"device_token": "\#(fcmToken(1).text)"}"#, .init(transport: .apns),
                .invalidToken("--transport is apns, but the token is an FCM registration token")
            ),
            (
                #"{"device_token": "phone", "apns_token": "abc:def", "transport": "fcm"}"#, .init(),
                .invalidToken("registration token has 7 characters; expected 100 to 4096")
            ),
            (
                #"{"device_token": "\#(fcmToken(1).text)", "transport": "gcm"}"#, .init(),
                .invalidBody("\"transport\" must be apns or fcm, not \"gcm\"")
            ),
            (
                #"{"device_token": "\#(fcmToken(1).text)", "transport": "FCM"}"#, .init(),
                .invalidBody("\"transport\" must be apns or fcm, not \"FCM\"")
            ),
            (
                #"{"device_token": "\#(fcmToken(1).text)", "push_to_start_token": "\#(token(2).text)"}"#, .init(),
                .invalidToken("\"push_to_start_token\": " + DeviceRegistration.pushToStartWithoutAPNs)
            ),
        ]
        for (body, defaults, expected) in cases {
            #expect(throws: expected, "\(body)") { _ = try parse(body, defaults: defaults) }
        }
    }

    @Test("the state file: transport written for FCM only, read back; list --json always says it")
    func stateFileRoundTrip() throws {
        var registry = RegisteredDevices()
        try registry.register(DeviceRegistration(deviceID: "pixel", token: fcmToken(1), name: "Pixel"), at: may1)
        try registry.register(registration("phone", 2, environment: .sandbox), at: may1)
        let text = String(decoding: registry.stateFileBytes(), as: UTF8.self)
        #expect(text.contains(#""pixel": {"token":"\#(fcmToken(1).text)","transport":"fcm","environment":null,"#))
        #expect(text.contains(#""phone": {"token":"\#(token(2).text)","environment":"sandbox","#), "APNs as before")
        let read = try RegisteredDevices(stateFile: Data(text))
        #expect(read["pixel"]?.token == fcmToken(1) && read["pixel"]?.token.transport == .fcm)
        #expect(read["phone"]?.token.transport == .apns && read.unreadableDevices.isEmpty)

        let lines = String(decoding: DeviceListing.jsonLines(read.devices), as: UTF8.self).split(separator: "\n")
        #expect(lines[0].hasPrefix(#"{"device_id":"phone","token":"\#(token(2).text)","transport":"apns","#))
        #expect(lines[1].hasPrefix(#"{"device_id":"pixel","token":"\#(fcmToken(1).text)","transport":"fcm","#))
    }

    @Test(
        "a record whose transport disagrees with its token, or is no transport, is unreadable, kept as it is",
        arguments: [
            (#"{"token": "\#(token(1).text)", "transport": "fcm"}"#, "\"transport\" is fcm, but the token is an APNs"),
            (
                #"{"token": "\#(fcmToken(1).text)", "transport": "apns"}"#,
                "\"transport\" is apns, but the token is an FCM registration token"
            ),
            (#"{"token": "\#(token(1).text)", "transport": "gcm"}"#, "\"transport\" must be apns, fcm or null"),
            (#"{"token": "\#(token(1).text)", "transport": 1}"#, "\"transport\" must be a string or null"),
        ])
    func mismatchIsUnreadable(record: String, expected: String) throws {
        let other = "{\"token\": \"\(token(2).text)\"}"
        let text = "{\"version\": 1, \"devices\": {\n    \"a\": \(record),\n    \"b\": \(other)}}\n"
        let registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry.deviceIDs == ["b"] && registry.unreadableDevices.map(\.id) == ["a"])
        let problem = registry.unreadableDevice("a")?.problem ?? "none"
        #expect(problem.contains(expected), "\(problem)")
        #expect(String(decoding: registry.stateFileBytes(), as: UTF8.self).contains("\"a\": \(record)"))
    }

    @Test("an FCM token shows in a TRANSPORT column, which a registry of APNs devices does not get")
    func table() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("phone", 1, environment: .production), at: may1)
        #expect(!DeviceListing.table(registry.devices, fullTokens: false).contains("TRANSPORT"))
        try registry.register(DeviceRegistration(deviceID: "pixel", token: fcmToken(1)), at: may1)
        let lines = DeviceListing.table(registry.devices, fullTokens: false).split(separator: "\n")
        #expect(lines[0].split(separator: " ").prefix(5) == ["DEVICE", "ID", "TOKEN", "TRANSPORT", "ENVIRONMENT"])
        #expect(lines[1].split(separator: " ").prefix(4) == ["phone", token(1).masked[...], "apns", "production"])
        #expect(lines[2].split(separator: " ").prefix(4) == ["pixel", fcmToken(1).masked[...], "fcm", "-"])
        #expect(DeviceListing.table(registry.devices, fullTokens: true).contains(fcmToken(1).text))
    }

    @Test("a device moving to an FCM token loses its environment and push-to-start token; FCM learns no environment")
    func registerAndBookkeeping() throws {
        var registry = RegisteredDevices()
        try registry.register(
            DeviceRegistration(
                deviceID: "phone", token: token(1), environment: .sandbox, pushToStartToken: token(0xa1)),
            at: may1)
        let outcome = try registry.register(DeviceRegistration(deviceID: "phone", token: fcmToken(1)), at: may1 + 60)
        #expect(outcome.tokenChanged)
        #expect(registry["phone"]?.environment == nil && registry["phone"]?.pushToStartToken == nil)
        let recorded = registry.recordEnvironment(.production, deviceID: "phone", token: fcmToken(1))
        #expect(!recorded && registry["phone"]?.environment == nil)
        #expect("a push-to-start token needs an APNs device") {
            try DeviceRegistration(deviceID: "pixel", token: fcmToken(2), pushToStartToken: token(0xa2))
        } throws: { ($0 as? RegistryError)?.description == DeviceRegistration.pushToStartWithoutAPNs }
        #expect(try DeviceRegistration(deviceID: "p", token: fcmToken(2), environment: .sandbox).environment == nil)
        let removed = registry.remove(idOrToken: fcmToken(1).text)
        #expect(removed.map(\.id) == ["phone"], "removed by its token")
    }

    @Test("bookkeeping: an FCM delivery records no environment; UNREGISTERED prunes as a 410 does")
    func bookkeeping() throws {
        let directory = try makeTemporaryDirectory()
        let store = StateFileRegistry(path: directory + "/devices.json", clock: ManualClock(may1 + 60))
        try store.register([
            try DeviceRegistration(deviceID: "gone", token: fcmToken(1)),
            try DeviceRegistration(deviceID: "kept", token: fcmToken(2)),
            try DeviceRegistration(deviceID: "fresh", token: fcmToken(3)),
        ])
        func result(
            _ id: String, _ token: DeviceToken, _ outcome: DeliveryResult.Outcome, at: Date?
        ) -> DeliveryResult {
            var result = DeliveryResult(
                target: DeliveryTarget(deviceID: id, token: token, recordedEnvironment: nil), environment: .production)
            result.outcome = outcome
            result.status = outcome == .delivered ? 200 : 404
            result.unregisteredAt = at
            return result
        }
        var results = [
            result("gone", fcmToken(1), .unregistered, at: may1 + 3600),
            result("kept", fcmToken(2), .unregistered, at: may1 - 3600),
            result("fresh", fcmToken(3), .delivered, at: nil),
        ]
        try RegistryBookkeeping.apply(&results, to: store)
        let devices = try store.load()
        #expect(results.map(\.pruned) == [true, false, false])
        #expect(devices["gone"] == nil && devices["kept"] != nil, "registered again after the answer: kept")
        #expect(!results[2].learnedEnvironment && devices["fresh"]?.environment == nil)
        #expect(devices["fresh"]?.lastDeliveredAt == may1 + 60)
    }

    @Test("the flat map and the device database take FCM tokens by their shape")
    func flatMapAndImport() throws {
        let flat = try RegisteredDevices(
            stateFile: Data(#"{"pixel": "\#(fcmToken(1).text)", "phone": "\#(token(1).text)"}"#))
        #expect(flat["pixel"]?.token == fcmToken(1) && flat["phone"]?.token == token(1))
        let sidecar = try RegisteredDevices(
            stateFile: Data(#"{"version": 1, "devices": {}, "pixel": "\#(fcmToken(1).text)"}"#))
        #expect(sidecar["pixel"]?.token == fcmToken(1), "a late flat-map write of an FCM token is adopted")
        #expect(
            String(decoding: flat.flatMapBytes(), as: UTF8.self).contains(#""pixel": "\#(fcmToken(1).text)""#))
    }
}
