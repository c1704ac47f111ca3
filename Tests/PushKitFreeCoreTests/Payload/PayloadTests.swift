import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("payload")
struct PayloadTests {
    @Test("only the fields that are set appear, custom data beside aps")
    func fields() throws {
        var content = NotificationContent()
        content.title = "Sven"
        content.body = "Your briefing is ready"
        content.badge = 1
        content.sound = "default"
        content.threadID = "briefings"
        content.mutableContent = true
        content.interruptionLevel = .timeSensitive
        content.relevanceScore = 0.5
        content.customData = ["message_id": "m-1"]
        #expect(
            content.payload == [
                "aps": [
                    "alert": ["title": "Sven", "body": "Your briefing is ready"],
                    "badge": 1, "sound": "default", "thread-id": "briefings", "mutable-content": 1,
                    "interruption-level": "time-sensitive", "relevance-score": 0.5,
                ],
                "message_id": "m-1",
            ])
        #expect(NotificationContent().payload == ["aps": [:]])
    }

    @Test("a payload that fits is untouched")
    func fits() throws {
        var content = NotificationContent()
        content.body = "short"
        let (data, shortened) = try PayloadFitter.fit(content, limit: 4096)
        #expect(!shortened)
        #expect(try JSONValue.parse(data) == content.payload)
    }

    @Test(
        "a body that is too long is cut on a character boundary, ends with …, and fills the limit",
        arguments: [4096, 5120, 200])
    func shortensBody(limit: Int) throws {
        var content = NotificationContent()
        content.title = "Title"
        // Multi-byte graphemes, including a 4+4-byte emoji sequence.
        content.body = String(repeating: "é👍🏽a", count: 3000)
        let (data, shortened) = try PayloadFitter.fit(content, limit: limit)
        #expect(shortened)
        #expect(data.count <= limit)
        let body = try #require(try JSONValue.parse(data)["aps"]?["alert"]?["body"]?.stringValue)
        #expect(body.hasSuffix("…"))
        #expect(content.body!.hasPrefix(String(body.dropLast())))
        // One more character would not fit: the cut is as late as possible.
        var longer = content
        longer.body = String(content.body!.prefix(body.count)) + "…"
        #expect(longer.payload.serialized().count > limit)
    }

    @Test("too large without the body to blame: refused with the sizes")
    func refuses() {
        var content = NotificationContent()
        content.customData = ["blob": .string(String(repeating: "x", count: 5000))]
        #expect(throws: PayloadError.tooLarge(size: 5020, limit: 4096, detail: "")) {
            try PayloadFitter.fit(content, limit: 4096)
        }
        content.body = "hello"
        #expect { try PayloadFitter.fit(content, limit: 4096) } throws: {
            "\($0)".contains("over the 4096-byte limit even with the body shortened")
        }
    }
}
