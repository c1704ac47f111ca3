import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("JSON scanner")
struct JSONScannerTests {
    @Test("parses every kind of value")
    func parsesValues() throws {
        let text = #"{"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d\"\\\/\n\t\u00e9\ud83d\ude00"}, "": 0}"#
        let value = try JSONValue.parse(Data(text.utf8))
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null]),
                    "b": .object(["c": .string("d\"\\/\n\té😀")]),
                    "": .number(0),
                ]))
    }

    @Test("agrees with JSONSerialization on a generated document")
    func agreesWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        var object: [String: Any] = [:]
        for index in 0..<300 {
            let number = Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 8
            object["key \(index) ü \u{1}"] =
                ["n": number, "s": "v\(index)\"\\\u{7f}日本", "b": index % 2 == 0, "z": NSNull()] as [String: Any]
        }
        let data = try JSONSerialization.data(withJSONObject: object)
        let parsed = try JSONValue.parse(data)
        #expect(parsed.objectValue?.count == 300)
        for index in [0, 17, 299] {
            let original = try #require(object["key \(index) ü \u{1}"] as? [String: Any])
            let member = try #require(parsed["key \(index) ü \u{1}"])
            #expect(member["n"]?.numberValue == original["n"] as? Double)
            #expect(member["s"]?.stringValue == original["s"] as? String)
            #expect(member["b"]?.boolValue == original["b"] as? Bool)
            #expect(member["z"] == .null)
        }
        var writer = JSONWriter()
        writer.value(parsed)
        let reparsed = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? NSDictionary)
        #expect(reparsed == object as NSDictionary)
    }

    @Test(
        "errors name the line and column",
        arguments: [
            ("{\n  \"a\": 1,\n  \"b\" 2\n}", "line 3, column 7: expected ':' after the member name"),
            ("{\"a\": [1, 2}", "line 1, column 12: expected ',' or ']'"),
            ("{\"a\": \"unterminated", "line 1, column 7: unterminated string"),
            ("{\"a\": 1,}", "line 1, column 9: expected a member name"),
            ("[01]", "line 1, column 2: leading zeros"),
            ("{\"a\": tru}", "line 1, column 7: expected true or false"),
            ("{} x", "line 1, column 4: unexpected 'x' after the JSON value"),
            ("", "line 1, column 1: unexpected end of input"),
            ("\"a\u{1}\"", "control character 0x1"),
            ("\"\\x\"", "invalid escape '\\x'"),
            ("\"\\ud800\"", "unpaired UTF-16 surrogate"),
        ])
    func reportsPosition(text: String, expected: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(text.utf8)) }
        #expect(error?.detail.contains(expected) == true, "\(error?.detail ?? "")")
    }

    @Test("invalid UTF-8 in a string is refused")
    func refusesInvalidUTF8() {
        let data = Data([0x22, 0xff, 0xfe, 0x22])
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(data) }
    }

    @Test("nesting deeper than the limit is refused, not a crash")
    func limitsDepth() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(deep.utf8)) }
        #expect(error?.detail.contains("nested deeper than 512") == true)
    }

    @Test("the writer escapes what JSON requires and nothing else")
    func writerEscapes() {
        var writer = JSONWriter()
        writer.string("a\"b\\c\nd\u{1}é/")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""a\"b\\c\nd\u0001é/""#)
    }
}
