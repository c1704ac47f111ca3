import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("registry: content keys")
struct RegistryContentKeyTests {
    let key = ContentKey.random()

    @Test("the state file keeps a device's content key, as base64, and reads it back")
    func codecRoundTrip() throws {
        var registry = RegisteredDevices()
        var withKey = registration("a", 1)
        withKey.contentKey = key
        try registry.register(withKey, at: may1)
        try registry.register(registration("b", 2), at: may1)
        let written = registry.stateFileBytes()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        let devices = try #require(object["devices"] as? [String: [String: Any]])
        #expect(devices["a"]?["content_key"] as? String == key.base64)
        #expect(devices["b"]?["content_key"] == nil)
        let reread = try RegisteredDevices(stateFile: Data(written))
        #expect(reread["a"]?.contentKey == key)
        #expect(reread["b"]?.contentKey == nil)
        #expect(reread == registry)
    }

    @Test("a content key in the state file that is not 32 bytes of base64 makes that record unreadable, never quoted")
    func badKeyInFile() throws {
        let short = Data(count: 16).base64EncodedString()
        for bad in [#""\#(short)""#, #""%%%""#, "7"] {
            let text = #"{"version":1,"devices":{"a":{"token":"\#(token(1).text)","content_key":\#(bad)}}}"#
            let unreadable = try #require(try RegisteredDevices(stateFile: Data(text)).unreadableDevice("a"))
            #expect(unreadable.problem.contains("content_key"), "\(unreadable.problem)")
            #expect(!unreadable.problem.contains(short) && !unreadable.warning(location: "f").contains(short))
        }
        let null = #"{"version":1,"devices":{"a":{"token":"\#(token(1).text)","content_key":null}}}"#
        #expect(try RegisteredDevices(stateFile: Data(null))["a"]?.contentKey == nil)
    }

    @Test("a registration without a key keeps the device's key, also with a new token; one with a key replaces it")
    func registrationKeepsKey() throws {
        var registry = RegisteredDevices()
        var first = registration("a", 1)
        first.contentKey = key
        try registry.register(first, at: may1)
        try registry.register(registration("a", 2), at: may1 + 1)
        #expect(registry["a"]?.contentKey == key)
        #expect(registry["a"]?.token == token(2))
        let other = ContentKey.random()
        var second = registration("a", 2)
        second.contentKey = other
        try registry.register(second, at: may1 + 2)
        #expect(registry["a"]?.contentKey == other)
    }

    @Test("make-content-key's change: stored, kept unless replacing, refused for an unknown device")
    func setContentKey() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("a", 1), at: may1)
        #expect(registry.setContentKey(key, deviceID: "nope", replacing: false) == .unknownDevice)
        #expect(registry.setContentKey(key, deviceID: "a", replacing: false) == .stored)
        let other = ContentKey.random()
        #expect(registry.setContentKey(other, deviceID: "a", replacing: false) == .alreadySet)
        #expect(registry["a"]?.contentKey == key)
        #expect(registry.setContentKey(other, deviceID: "a", replacing: true) == .stored)
        #expect(registry["a"]?.contentKey == other)
    }

    @Test("list never shows a key unless asked: the table says yes, --json leaves content_key out")
    func listingHidesKeys() throws {
        var registry = RegisteredDevices()
        var withKey = registration("a", 1)
        withKey.contentKey = key
        try registry.register(withKey, at: may1)
        try registry.register(registration("b", 2), at: may1)
        let table = DeviceListing.table(registry.devices, fullTokens: true)
        #expect(!table.contains(key.base64))
        #expect(table.split(separator: "\n").first?.hasSuffix("CONTENT KEY") == true)
        #expect(table.split(separator: "\n")[1].hasSuffix("yes"))
        #expect(table.split(separator: "\n")[2].hasSuffix("-"))
        let lines = String(decoding: DeviceListing.jsonLines(registry.devices), as: UTF8.self)
        #expect(!lines.contains(key.base64) && !lines.contains("content_key"))
        #expect(DeviceListing.table(registry.devices, fullTokens: false, contentKeys: true).contains(key.base64))
        let shown = DeviceListing.jsonLines(registry.devices, contentKeys: true)
        #expect(String(decoding: shown, as: UTF8.self).contains(#""content_key":"\#(key.base64)""#))
        // What --json --show-content-keys prints imports back with the keys.
        #expect(try RegisteredDevices(importing: Data(shown))["a"]?.contentKey == key)
    }

    @Test("a registration body's content_key: stored when valid, 400 when not base64 or not 32 bytes")
    func requestBody() throws {
        let body: JSONValue = [
            "device_token": "a", "apns_token": .string(token(1).text), "content_key": .string(key.base64),
        ]
        #expect(try DeviceRegistration.registration(fromBody: body).contentKey == key)
        for bad in ["abc", Data(count: 33).base64EncodedString()] {
            var members = try #require(body.objectValue)
            members["content_key"] = .string(bad)
            #expect(throws: RegistrationBodyError.self) {
                try DeviceRegistration.registration(fromBody: .object(members))
            }
        }
        var members = try #require(body.objectValue)
        members["content_key"] = 5
        #expect(throws: RegistrationBodyError.self) { try DeviceRegistration.registration(fromBody: .object(members)) }
    }
}
