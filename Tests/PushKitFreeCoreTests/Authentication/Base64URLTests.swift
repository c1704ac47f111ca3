import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("base64url")
struct Base64URLTests {
    @Test(
        "encodes without padding and with the URL alphabet",
        arguments: [
            ([UInt8](), ""), ([0xfb], "-w"), ([0xff, 0xff], "__8"), ([0x66, 0x6f, 0x6f], "Zm9v"),
        ])
    func encodes(bytes: [UInt8], expected: String) {
        #expect(Base64URL.encode(bytes) == expected)
        #expect(Base64URL.decode(Substring(expected)) == Data(bytes))
    }

    @Test("rejects text that is not base64url")
    func rejectsGarbage() {
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab$c") == nil)
    }
}
