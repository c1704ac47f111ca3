import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("TerminalText: outside text made safe for a terminal")
struct TerminalTextTests {
    @Test("controls, escape sequences, BEL, DEL, C1 controls and bidirectional overrides show as escapes")
    func escapes() {
        #expect(
            TerminalText.escaped("a\u{1B}[31mb\u{07}c\u{7F}d\u{9B}e\u{202E}f\u{2066}g")
                == "a\\u{1B}[31mb\\u{7}c\\u{7F}d\\u{9B}e\\u{202E}f\\u{2066}g")
        #expect(TerminalText.escaped("line\nnext\ttab\rback") == "line\\nnext\\ttab\\rback")
        #expect(TerminalText.escapedKeepingLines("ok\n\tindented \u{1B}[2J\r\n") == "ok\n\tindented \\u{1B}[2J\\r\n")
    }

    @Test("ordinary text, accents and emoji sequences (joined by U+200D) pass unchanged")
    func ordinaryText() {
        for text in ["Ada's iPhone", "Zoë's iPad", "👨‍👩‍👧 family", "日本語", ""] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test("a field longer than the limit is cut and ends in an ellipsis; the escapes count toward it")
    func fieldLimit() {
        let long = String(repeating: "x", count: 3000)
        #expect(TerminalText.field(long) == String(repeating: "x", count: TerminalText.displayLimit - 1) + "…")
        #expect(
            TerminalText.field(String(repeating: "y", count: TerminalText.displayLimit)).count
                == TerminalText.displayLimit)
        #expect(TerminalText.field("\u{1B}abc", limit: 5) == "\\u{1…")
    }

    @Test("JSON output escapes the same characters as \\uXXXX, and parses back to the same text")
    func jsonEscapes() throws {
        let text = "Ada\u{1B}[31m\u{202E}x\u{2028}y\u{85}z – é 👨‍👩‍👧"
        let quoted = JSONString.quoted(text)
        #expect(quoted == #""Ada\u001b[31m\u202ex\u2028y\u0085z – é 👨‍👩‍👧""#)
        #expect(try JSONValue.parse(Data(quoted.utf8)) == .string(text))
        #expect(JSONString.quoted("plain – ’quoted’") == "\"plain – ’quoted’\"")
    }

    @Test("send-push's report escapes a hostile APNs reason and device id")
    func reportLines() throws {
        let token = try DeviceToken(validating: String(repeating: "ab", count: 32))
        var result = DeliveryResult(
            target: DeliveryTarget(deviceID: "dev\u{202E}ice", token: token, recordedEnvironment: nil),
            environment: .production)
        result.outcome = .rejected
        result.status = 400
        result.reason = "Bad\u{1B}]0;owned\u{07}Reason"
        let line = DeliveryReport(results: [result], seconds: 0).lines(fullTokens: false)
        #expect(line.contains("dev\\u{202E}ice"))
        #expect(line.contains("400 Bad\\u{1B}]0;owned\\u{7}Reason"))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }
}
