import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("registry: state file format")
struct RegistryStateFileTests {
    init() {
        RegistryUnreadableRecordTests.captureWarnings()
    }

    let tokenA = token(0xa).text

    @Test("reads version 1 with every field")
    func readsVersionOne() throws {
        let text = """
            {"version": 1, "devices": {"ipad": {"token": "\(tokenA.uppercased())", "environment": "sandbox", "name": "Sven's iPad",
            "model": "iPad13,1", "os_version": "17.4", "app_version": "2.0", "groups": ["beta", "staff"],
            "registered_at": "2024-05-01T12:00:00Z", "last_seen_at": "2024-05-02T12:00:00.500Z", "last_delivered_at": null}}}
            """
        let registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry.storedFormat == .versioned)
        let record = try #require(registry["ipad"])
        #expect(
            record
                == DeviceRecord(
                    token: token(0xa), environment: .sandbox, name: "Sven's iPad", model: "iPad13,1", osVersion: "17.4",
                    appVersion: "2.0", groups: ["beta", "staff"], registeredAt: may1,
                    lastSeenAt: may1 + 86_400.5, lastDeliveredAt: nil
                ))
    }

    @Test("a record may leave out everything but its token")
    func minimalRecord() throws {
        let registry = try RegisteredDevices(stateFile: Data(#"{"version":1,"devices":{"a":{"token":"\#(tokenA)"}}}"#))
        #expect(registry["a"] == DeviceRecord(token: token(0xa)))
    }

    @Test("writes what it reads, and unknown fields survive at both levels")
    func roundTripsUnknownFields() throws {
        let text = """
            {"version": 1, "future_setting": {"x": [1, "two"]}, "devices": {
              "b": {"token": "\(token(0xb).text)", "push_count": 3, "labels": {"color": "red"}},
              "a": {"token": "\(tokenA)", "environment": "production", "registered_at": "2024-05-01T12:00:00.000Z"}}}
            """
        let registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry["b"]?.otherFields == ["push_count": .number(3), "labels": .object(["color": .string("red")])])
        let written = registry.stateFileBytes()
        let reread = try RegisteredDevices(stateFile: Data(written))
        #expect(reread == registry)
        #expect(reread.otherFields == ["future_setting": .object(["x": .array([.number(1), .string("two")])])])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        let devices = try #require(object["devices"] as? [String: [String: Any]])
        #expect(devices["b"]?["push_count"] as? Int == 3)
        #expect(devices["a"]?["registered_at"] as? String == "2024-05-01T12:00:00.000Z")
    }

    @Test("unchanged records are copied byte for byte; a changed one is written whole")
    func copiesUnchangedRecords() throws {
        let a = #"{"token": "\#(token(0xa).text.uppercased())", "environment": "development", "custom": 1}"#
        let b = #"{"token":"\#(token(0xb).text)"}"#
        var registry = try RegisteredDevices(stateFile: Data(#"{"version": 1, "devices": {"a": \#(a), "b": \#(b)}}"#))
        var text = String(decoding: registry.stateFileBytes(), as: UTF8.self)
        #expect(text.contains(#""a": \#(a),"#) && text.contains(#""b": \#(b)"#))

        registry.recordDelivery(to: ["a"], at: may1)
        text = String(decoding: registry.stateFileBytes(), as: UTF8.self)
        #expect(text.contains(#""a": {"token":"\#(token(0xa).text)","environment":"sandbox","name":null,"#))
        #expect(text.contains(#""last_delivered_at":"2024-05-01T12:00:00.000Z","custom":1}"#))
        #expect(text.contains(#""b": \#(b)"#))
        #expect(try RegisteredDevices(stateFile: Data(text.utf8)) == registry)
    }

    @Test("the file has one device per line, sorted by id")
    func layout() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("b", 2), at: may1)
        try registry.register(registration("a", 1), at: may1)
        let lines = String(decoding: registry.stateFileBytes(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 7)
        #expect(lines[0] == "{" && lines[1] == "  \"version\": 1," && lines[2] == "  \"devices\": {")
        #expect(lines[3].hasPrefix("    \"a\": {\"token\":\"\(token(1).text)\",\"environment\":null,"))
        #expect(lines[4].hasPrefix("    \"b\": {"))
        #expect(lines[5] == "  }" && lines[6] == "}")
    }

    @Test("an empty registry is written as version 1 and read back")
    func emptyRegistry() throws {
        let bytes = RegisteredDevices().stateFileBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == "{\n  \"version\": 1,\n  \"devices\": {}\n}\n")
        #expect(try RegisteredDevices(stateFile: Data(bytes)).count == 0)
    }

    @Test("an empty file reads as an empty registry")
    func emptyFile() throws {
        #expect(try RegisteredDevices(stateFile: Data("  \n")).storedFormat == .absent)
    }

    @Test("the flat map of earlier servers is read, tokens normalized")
    func readsFlatMap() throws {
        let registry = try RegisteredDevices(
            stateFile: Data(#"{"phone": "\#(tokenA.uppercased())", "version": "\#(token(0xb).text)"}"#))
        #expect(registry.storedFormat == .legacyFlatMap)
        #expect(registry["phone"] == DeviceRecord(token: token(0xa)))
        #expect(registry["version"]?.token == token(0xb), "a device may be called \"version\" in a flat map")
        #expect(try RegisteredDevices(stateFile: Data("{}")).storedFormat == .legacyFlatMap)
    }

    @Test(
        "wrong shapes are refused with line, column and the culprit",
        arguments: [
            (#"[]"#, "line 1, column 1: expected an object with \"version\" and \"devices\", found an array"),
            (#"{"version": 2, "devices": {}}"#, "line 1, column 13: version 2 is not supported"),
            (#"{"version": 1, "devices": []}"#, "\"devices\" must be an object, not array"),
            (#"{"devices": {}}"#, "\"devices\" without \"version\""),
            (#"{"phone": 12}"#, "\"phone\" is number, but without \"version\" this must be a flat map"),
            (#"{"phone": "not-a-token"}"#, "device \"phone\": device token has \"n\" at position 1"),
            ("{\"version\": 1,\n \"devices\": {\"a\": {\"token\": \"aa\"", "line 2, column "),
        ])
    func refusesWrongShapes(text: String, expected: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try RegisteredDevices(stateFile: Data(text)) }
        #expect(error?.detail.contains(expected) == true, "\(error?.detail ?? "no error")")
    }

    @Test(
        "a record that is JSON but no usable device is kept apart, named with its field, the others read",
        arguments: [
            (#"{"token": 5}"#, "\"token\" must be a string, not a number (line 2, column 20)"),
            (#"{"name": "x"}"#, "device \"a\" has no \"token\""),
            (#""tok""#, "device \"a\" must be an object, not a string"),
            (#"{"token": "abc"}"#, "device token has 3 hex digits"),
            (#"{"token": "TOKEN", "groups": "beta"}"#, "device token has \"T\" at position 1"),
            (
                #"{"token": "\#(String(repeating: "a", count: 64))", "groups": "beta"}"#,
                "\"groups\" must be an array of strings, not a string"
            ),
            (
                #"{"token": "\#(String(repeating: "a", count: 64))", "groups": [1]}"#,
                "\"groups\" must be an array of strings, not a number"
            ),
            (
                #"{"token": "\#(String(repeating: "a", count: 64))", "environment": "staging"}"#,
                "\"environment\" must be production, sandbox or null, not \"staging\""
            ),
            (
                #"{"token": "\#(String(repeating: "a", count: 64))", "last_seen_at": "monday"}"#,
                "\"last_seen_at\" is not an ISO 8601 timestamp: \"monday\""
            ),
            (
                #"{"token": "\#(String(repeating: "a", count: 64))", "content_key": "c2hvcnQ="}"#,
                "\"content_key\": a content key is 32 bytes, not 5"
            ),
            (#"{"token": "\#(String(repeating: "a", count: 64))", "briefing": {"time": "25:00"}}"#, "\"briefing\": "),
        ])
    func keepsUnreadableRecordsApart(record: String, expected: String) throws {
        let good = #"{"token": "\#(tokenA)", "groups": ["family"]}"#
        let text = "{\"version\": 1, \"devices\": {\n    \"a\": \(record),\n    \"b\": \(good)}}\n"
        let registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry.deviceIDs == ["b"] && registry["b"]?.groups == ["family"], "the other device is usable")
        #expect(registry["a"] == nil && registry.unreadableDevices.map(\.id) == ["a"])
        let problem = registry.unreadableDevice("a")?.problem ?? "none"
        #expect(problem.contains(expected), "\(problem)")
        #expect(!problem.hasPrefix("device \"a\": "), "the id is not repeated before the field: \(problem)")
        // Written back byte for byte, also after a change to another device.
        var changed = registry
        try changed.register(registration("c", 3), at: may1)
        let rewritten = String(decoding: changed.stateFileBytes(), as: UTF8.self)
        #expect(rewritten.contains("\"a\": \(record)"), "\(rewritten)")
        #expect(try RegisteredDevices(stateFile: Data(rewritten.utf8)).unreadableDevices == registry.unreadableDevices)
    }

    @Test("a truncated file is refused wherever it was cut")
    func refusesTruncation() throws {
        var registry = RegisteredDevices()
        for number in 1...20 {
            try registry.register(registration("device-\(number)", number, name: "Name \(number)"), at: may1)
        }
        let bytes = registry.stateFileBytes()
        for length in stride(from: 1, to: bytes.count - 2, by: 7) {
            #expect(throws: JSONSyntaxError.self, "cut at \(length)") {
                try RegisteredDevices(stateFile: Data(bytes.prefix(length)))
            }
        }
    }

    @Test("JSON Lines from list --json import back to the same registry")
    func importsJSONLines() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("a", 1, environment: .sandbox, name: "A\nB", groups: ["g"]), at: may1)
        try registry.register(registration("b", 2), at: may1 + 1)
        registry["b"]?.otherFields["future"] = .bool(true)
        let lines = DeviceListing.jsonLines(registry.devices)
        let imported = try RegisteredDevices(importing: Data(lines))
        #expect(imported == registry)
    }

    @Test("import also reads both state file formats")
    func importsStateFiles() throws {
        #expect(try RegisteredDevices(importing: Data(#"{"x": "\#(tokenA)"}"#))["x"]?.token == token(0xa))
        #expect(
            try RegisteredDevices(
                importing: Data(RegisteredDevices(records: ["y": DeviceRecord(token: token(1))]).stateFileBytes()))["y"]
                != nil)
    }
}
