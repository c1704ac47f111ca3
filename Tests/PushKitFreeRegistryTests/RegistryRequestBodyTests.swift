import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("registry: registration bodies (--from-json)")
struct RegistryRequestBodyTests {
    func parse(
        _ text: String, defaults: DeviceRegistration.Defaults = .init()
    ) throws(RegistryError) -> [DeviceRegistration] {
        try DeviceRegistration.parseRequestBodies(Data(text), source: "body.json", defaults: defaults)
    }

    func failure(_ text: String) -> String {
        do throws(RegistryError) {
            _ = try parse(text)
            return "no error"
        } catch {
            #expect(error.exitStatus == .dataError)
            return error.description
        }
    }

    @Test("device id and apns token")
    func idAndToken() throws {
        let parsed = try parse(#"{"device_token": "install-42", "apns_token": "\#(token(1).text.uppercased())"}"#)
        #expect(parsed == [registration("install-42", 1)])
    }

    @Test("without an app device id, the id is derived from the token (never the token itself)")
    func keyedByToken() throws {
        let parsed = try parse(
            #"{"device_token": "\#(token(2).text)", "device_name": "iPad", "device_model": "iPad13,1", "os_version": "17.4", "app_version": "2.0", "locale": "de"}"#
        )
        let derived = DeviceRegistration.derivedDeviceID(for: token(2))
        let expected = try DeviceRegistration(
            deviceID: derived, token: token(2), name: "iPad", model: "iPad13,1", osVersion: "17.4", appVersion: "2.0")
        #expect(parsed == [expected])
        // "apns-" and the first 16 hex digits of SHA-256 of the lowercase hex text, as sha256sum computes it.
        #expect(derived.hasPrefix("apns-") && derived.count == 21 && !derived.contains(token(2).text))
        #expect(
            DeviceRegistration.derivedDeviceID(for: try DeviceToken(validating: token(2).text.uppercased())) == derived)
        #expect(DeviceRegistration.derivedDeviceID(for: token(3)) != derived)
    }

    @Test("a known digest: the derived id matches sha256sum")
    func derivedIDDigest() throws {
        // printf %s 000102...1f | sha256sum
        let token = try DeviceToken(validating: (0..<32).map { String(format: "%02x", $0) }.joined())
        #expect(DeviceRegistration.derivedDeviceID(for: token) == "apns-6c86c6aac5fb24bc")
        #expect(HexDigest.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("one per line, blank lines skipped, or an array")
    func several() throws {
        let lines =
            "{\"device_token\": \"a\", \"apns_token\": \"\(token(1).text)\"}\n\n{\"device_token\": \"\(token(2).text)\"}\n"
        #expect(try parse(lines).map(\.deviceID) == ["a", DeviceRegistration.derivedDeviceID(for: token(2))])
        let array =
            "[{\"device_token\": \"a\", \"apns_token\": \"\(token(1).text)\"}, {\"device_token\": \"b\", \"apns_token\": \"\(token(2).text)\"}]"
        #expect(try parse(array).map(\.deviceID) == ["a", "b"])
    }

    @Test("flags fill what a body leaves out; the body wins")
    func defaultsFillGaps() throws {
        let defaults = DeviceRegistration.Defaults(environment: .sandbox, name: "flag", groups: ["g"])
        let parsed = try parse(
            #"{"device_token": "a", "apns_token": "\#(token(1).text)", "device_name": "body", "environment": "production"}"#,
            defaults: defaults)
        #expect(
            parsed.first?.environment == .production && parsed.first?.name == "body" && parsed.first?.groups == ["g"])
    }

    @Test(
        "bad bodies say where and what",
        arguments: [
            ("", "no registration body: body.json is empty"),
            ("  \n ", "no registration body: body.json is empty"),
            ("{\"device_token\": ", "registration body in body.json is not valid JSON: line 1, column 18"),
            (
                "{\n  \"device_token\": \"a\",\n  \"apns_token\": }",
                "registration body in body.json is not valid JSON: line 3, column 17"
            ),
            (
                "{\"device_token\": \"a\", \"apns_token\": \"\(String(repeating: "a", count: 64))\"}\n{\"device_token\": 5}",
                "line 2 of body.json: \"device_token\" must be a string, not number"
            ),
            (
                "{\"device_token\": \"a\", \"apns_token\": \"\(String(repeating: "a", count: 64))\"}\n{oops",
                "line 2 of body.json is not valid JSON: line 1, column 2"
            ),
            ("{\"apns_token\": \"abc\"}", "registration body in body.json: \"device_token\" is missing"),
            ("{\"device_token\": \"not hex\"}", "device token has \"n\" at position 1"),
            ("{\"device_token\": \"a\", \"apns_token\": \"abcd\"}", "device token has 4 hex digits"),
            ("[1]", "element 1 of body.json: expected a JSON object, not number"),
            (
                "{\"device_token\": \"a\", \"apns_token\": \"\(String(repeating: "a", count: 64))\", \"groups\": \"x\"}",
                "\"groups\" must be an array of strings"
            ),
            (
                "{\"device_token\": \"a\", \"apns_token\": \"\(String(repeating: "a", count: 64))\", \"environment\": \"qa\"}",
                "\"environment\" must be production or sandbox, not \"qa\""
            ),
        ])
    func refusesBadBodies(text: String, expected: String) {
        let message = failure(text)
        #expect(message.contains(expected), "\(message)")
    }

    @Test("device ids and groups are checked")
    func checksIDsAndGroups() throws {
        #expect(throws: RegistryError.self) { try DeviceRegistration(deviceID: "", token: token(1)) }
        #expect(throws: RegistryError.self) { try DeviceRegistration(deviceID: "a\nb", token: token(1)) }
        #expect(throws: RegistryError.self) { try DeviceRegistration(deviceID: "a", token: token(1), groups: ["x,y"]) }
        #expect(try DeviceRegistration(deviceID: "a", token: token(1), groups: ["x", "y", "x"]).groups == ["x", "y"])
    }

    @Test(
        "the endpoint's text limit: any character up to 256 (Unicode scalars), control characters included; none on the command line"
    )
    func textLimits() throws {
        let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}Ada"
        let limit = DeviceRegistration.endpointTextLimit
        #expect(limit == 256)
        func body(_ members: String) -> JSONValue {
            (try? JSONValue.parse(Data(#"{"device_token": "a", "apns_token": "\#(token(1).text)", \#(members)}"#.utf8)))
                ?? .null
        }
        func refusal(_ members: String) -> String {
            do throws(RegistrationBodyError) {
                _ = try DeviceRegistration.registration(fromBody: body(members), textLimit: limit)
                return "no error"
            } catch {
                return error.description
            }
        }
        let accepted = try DeviceRegistration.registration(
            fromBody: body(
                #""device_name": "\u001b]0;pwned\u0007\u001b[2J\u202eAda", "app_version": "\#(String(repeating: "é", count: 256))", "groups": ["\#(String(repeating: "g", count: 256))"]"#
            ), textLimit: limit)
        #expect(accepted.name == hostile)
        // 256 scalars that are 128 emoji with a modifier each: counted as JSON Schema counts, not as graphemes.
        let emoji = String(repeating: "\u{1F44D}\u{1F3FB}", count: 128)
        #expect(
            try DeviceRegistration.registration(fromBody: body(#""device_name": "\#(emoji)""#), textLimit: limit).name
                == emoji)
        #expect(
            refusal(#""device_name": "\#(emoji)x""#)
                == "\"device_name\" is 257 characters long; at most 256 are accepted")
        #expect(
            refusal(#""device_model": "\#(String(repeating: "m", count: 3000))""#).contains(
                "\"device_model\" is 3000 characters long"))
        #expect(refusal(#""os_version": "\#(String(repeating: "1", count: 257))""#).contains("\"os_version\" is 257"))
        #expect(refusal(#""app_version": "\#(String(repeating: "2", count: 257))""#).contains("\"app_version\" is 257"))
        #expect(
            refusal(#""groups": ["\#(String(repeating: "g", count: 257))"]"#)
                == "group name is 257 characters long; at most 256 are accepted")
        // An alias is held to the same rules, even beside the member it stands for.
        #expect(
            refusal(#""device_name": "x", "name": "\#(String(repeating: "x", count: 300))""#).contains(
                "\"name\" is 300 characters"))
        #expect(refusal(#""device_name": "x", "name": 5"#).contains("\"name\" must be a string, not number"))
        #expect(refusal(#""model": [], "device_model": null"#).contains("\"model\" must be a string"))
        // The command line (add, --from-json) takes what its operator gives.
        let long = String(repeating: "n", count: 3000)
        #expect(try DeviceRegistration(deviceID: "a", token: token(1), name: long, groups: [long]).name == long)
        #expect(
            try parse(#"{"device_token": "a", "apns_token": "\#(token(1).text)", "device_name": "\#(long)"}"#).first?
                .name == long)
        let parsed = try parse(
            "{\"device_token\": \"a\", \"apns_token\": \"\(token(1).text)\", \"device_name\": null, \"name\": \"\\u001b[31mred\", \"environment\": null, \"groups\": null}"
        )
        #expect(
            parsed.first?.name == "\u{1B}[31mred" && parsed.first?.groups == nil && parsed.first?.environment == nil)
    }
}
