import Testing
@testable import PushKitFreeCore

@Suite("registry: device tokens")
struct RegistryTokenTests {
    static let today = String(repeating: "740f4707bebcf74f", count: 4)

    @Test("a 32-byte token is accepted and stored lowercase")
    func acceptsTodaysToken() throws {
        let token = try DeviceToken(validating: Self.today.uppercased())
        #expect(token.text == Self.today)
        #expect(token.byteCount == 32)
    }

    @Test("lengths from 16 to 256 bytes are accepted", arguments: [16, 32, 100, 256])
    func acceptsVariableLengths(bytes: Int) throws {
        #expect(try DeviceToken(validating: String(repeating: "ab", count: bytes)).byteCount == bytes)
    }

    @Test(
        "other lengths are refused with the length in the message",
        arguments: [
            (0, "device token is empty"), (31, "has 31 hex digits"), (30, "has 30 hex digits"),
            (513, "has 513 hex digits"), (514, "has 514 hex digits"),
        ])
    func refusesLengths(digits: Int, message: String) {
        let error = #expect(throws: DeviceTokenError.self) {
            try DeviceToken(validating: String(repeating: "a", count: digits))
        }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("32 to 512") == true)
        #expect(error?.exitStatus == .dataError)
    }

    @Test(
        "the first character that is not hex is named with its position",
        arguments: [
            ("abcg" + String(repeating: "0", count: 60), "\"g\" at position 4"),
            ("0123 4567" + String(repeating: "0", count: 55), "a space at position 5"),
            ("<" + String(repeating: "0", count: 64) + ">", "\"<\" at position 1"),
            (String(repeating: "0", count: 64) + "\n", "a line break at position 65"),
            ("00é" + String(repeating: "0", count: 61), "\"é\" at position 3"),
        ])
    func namesBadCharacter(text: String, message: String) {
        let error = #expect(throws: DeviceTokenError.self) { try DeviceToken(validating: text) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test("a bad character is reported even when the length is also wrong")
    func characterBeforeLength() {
        let error = #expect(throws: DeviceTokenError.self) { try DeviceToken(validating: "xyz") }
        #expect(error?.message.contains("\"x\" at position 1") == true)
    }

    @Test("masking keeps the first 8 and last 4 hex digits")
    func masks() throws {
        let token = try DeviceToken(validating: "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad")
        #expect(token.masked == "740f4707…78ad")
    }
}
