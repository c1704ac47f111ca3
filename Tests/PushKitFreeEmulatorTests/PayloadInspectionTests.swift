import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeEmulator

@Suite("JSON scanner")
struct PayloadInspectionTests {
    func scan(_ text: String) -> PayloadInspection.Result? {
        try? PayloadInspection.inspect(Array(text.utf8)).get()
    }

    @Test("compacts: no whitespace outside strings, keys sorted, escapes and numbers normalized")
    func compacts() throws {
        let result = try #require(
            scan(" {\n \"n\": [1, 2.5e-3, -0, true, false, null],\n \"aps\" : { \"alert\" : \"a  b\\n\\u00e9\" } }\r\n")
        )
        #expect(
            String(decoding: result.compact, as: UTF8.self)
                == #"{"aps":{"alert":"a  b\né"},"n":[1,0.0025,0,true,false,null]}"#)
        #expect(result.kind == .object)
        #expect(result.apsKind == .object)
    }

    @Test("reports the kind of the top-level aps member only")
    func apsKind() {
        #expect(scan(#"{"aps":"x"}"#)?.apsKind == .string)
        #expect(scan(#"{"x":{"aps":{}}}"#)?.apsKind == nil)
        #expect(scan(#"{"\u0061ps":{}}"#)?.apsKind == .object)
        #expect(scan(#"{"apsx":{}}"#)?.apsKind == nil)
        #expect(scan(#"[{"aps":{}}]"#)?.kind == .array)
        #expect(scan(#""aps""#)?.kind == .string)
    }

    @Test(
        "accepts valid UTF-8 and every value kind",
        arguments: [
            #"{"a":"héllo 🎉 日本"}"#, "0", "-1.5E+10", #""\"\\\/\b\f\n\r\t""#, "[]", "{}", "[[[]]]", "null",
        ])
    func accepts(text: String) {
        #expect(scan(text) != nil, "\(text)")
    }

    @Test(
        "rejects malformed JSON",
        arguments: [
            "", " ", "{", "}", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, "01", "1.", ".5", "-", "1e", "+1",
            "tru", "nul", #""abc"#, "\"a\u{01}b\"", #""\x""#, #""\u12G4""#, "[1 2]", "{} {}", "'a'", "NaN",
        ])
    func rejects(text: String) {
        #expect(scan(text) == nil, "\(text.debugDescription)")
    }

    @Test("rejects invalid UTF-8 inside strings")
    func rejectsInvalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22],
        ] {
            #expect((try? PayloadInspection.inspect(bytes).get()) == nil, "\(bytes)")
        }
    }

    @Test("refuses nesting deeper than 512 levels")
    func depth() {
        #expect(scan(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) != nil)
        #expect(scan(String(repeating: "[", count: 513) + String(repeating: "]", count: 513)) == nil)
    }

    @Test("agrees with JSONSerialization on what is valid")
    func agreesWithFoundation() {
        let samples = [
            #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"default"},"id":42}"#,
            #"{"a":[1,{"b":null}]}"#, #"{"a":1e400}"#,
        ]
        for sample in samples {
            let ours = scan(sample)
            let theirs = try? JSONSerialization.jsonObject(with: Data(sample.utf8), options: [.fragmentsAllowed])
            #expect((ours != nil) == (theirs != nil) || sample.contains("e400"), "\(sample)")
        }
    }
}
