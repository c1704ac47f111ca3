import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("header values: no control character, no line break of any kind")
struct HeaderValueTests {
    @Test("C0 controls, DEL, C1 controls (NEL among them) and U+2028/U+2029 all count as control characters")
    func controlCharacters() {
        for text in [
            "a\nb", "a\rb", "a\tb", "a\u{0}b", "a\u{7F}b", "a\u{80}b", "a\u{85}b", "a\u{9F}b", "a\u{2028}b",
            "a\u{2029}b", "\u{85}", "é\u{2028}",
        ] {
            #expect(HeaderValue.hasControlCharacter(text), "\(text.unicodeScalars.map { $0.value })")
        }
    }

    @Test("printable text, ASCII or not, is a header value: accents, emoji, U+00A0, U+200B")
    func printableText() {
        for text in ["build-42", "", "café", "🚀 launch", "a\u{A0}b", "a\u{200B}b", "\u{2027}\u{202A}"] {
            #expect(!HeaderValue.hasControlCharacter(text), "\(text.unicodeScalars.map { $0.value })")
        }
    }

    @Test("a collapse id with NEL or a line separator is refused before anything is sent, naming the setting")
    func collapseIDRefused() {
        for collapseID in ["update\u{85}apns-priority: 5", "update\u{2028}x", "update\u{2029}x"] {
            let request = APNsRequest(bundleID: "com.example.app", collapseID: collapseID, payload: Data("{}".utf8))
            let error = #expect(throws: PayloadError.self) { try request.validate() }
            #expect(error?.worded(naming: { _ in "--collapse-id" }).hasPrefix("--collapse-id must not contain") == true)
        }
    }
}
