import Foundation
import PushKitFreeCore
import PushKitFreeRegistry
import Testing

@testable import PushKitFreeServer

/// The body of `POST /v1/withdraw` (`WithdrawalFields(body:)`) and whom it sends to.
@Suite("register-apns serve: POST /v1/withdraw's body")
struct WithdrawRequestTests {
    static func request(_ json: String) throws -> WithdrawalFields {
        try WithdrawalFields(body: try JSONValue.parse(Data(json.utf8)))
    }

    @Test("the id, a device or a group; the specification is the withdrawal of the id")
    func reads() throws {
        let device = try Self.request(#"{"id": "build-42", "device": "phone"}"#)
        #expect(device.id == "build-42" && device.device == "phone" && device.group == nil)
        #expect(device.specification.withdraw == "build-42" && device.specification.pushType == .background)
        let group = try Self.request(#"{"id": "dinner", "group": "family", "device": null}"#)
        #expect(group.group == "family" && group.device == nil)
        let longest = String(repeating: "é", count: 32)
        #expect(try Self.request(#"{"id": "\#(longest)"}"#).id == longest, "64 bytes")
    }

    @Test(
        "refusals name the member at fault",
        arguments: [
            (#"{"id": "a", "title": "t"}"#, "unknown member \"title\"; a withdrawal takes device, group, id"),
            (#"{"device": "phone"}"#, "\"id\" is missing: the collapse id the notification was sent with"),
            (#"{"id": null}"#, "\"id\" is missing: the collapse id the notification was sent with"),
            (#"{"id": 42}"#, "\"id\" must be a string, not number"),
            (
                #"{"id": ""}"#,
                "\"id\" must be the collapse id the notification was sent with: 1 to 64 bytes without control characters"
            ),
            (
                #"{"id": "\#(String(repeating: "é", count: 33))"}"#,
                "\"id\" must be the collapse id the notification was sent with: 1 to 64 bytes without control characters"
            ),
            (
                #"{"id": "a\nb"}"#,
                "\"id\" must be the collapse id the notification was sent with: 1 to 64 bytes without control characters"
            ),
            (
                #"{"id": "a", "device": "phone", "group": "family"}"#,
                "give \"device\" or \"group\", not both (neither: every device)"
            ),
            (#"["a"]"#, "expected a JSON object with \"id\", not array"),
        ])
    func refusals(json: String, message: String) throws {
        let error = try #require(throws: EndpointError.self) { try Self.request(json) }
        #expect(error.status.code == 400 && error.message == message, "\(error)")
    }
}
