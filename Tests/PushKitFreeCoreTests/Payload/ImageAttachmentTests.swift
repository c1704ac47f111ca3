import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

/// An image in the notification (`send-push --image`, `image` in the bodies and `notify`): the
/// URL beside `aps` as `image_url`, with `mutable-content`, for the app's service extension.
@Suite("images: the URL the app attaches")
struct ImageAttachmentTests {
    let probe = SpecificationProbe.alert(title: "Build 42")

    func built(_ configure: (inout PushSpecification) -> Void) throws -> JSONValue { try probe.payload(configure) }

    func refusal(_ configure: (inout PushSpecification) -> Void) -> String { probe.refusal(configure) }

    @Test("the URL goes beside aps, with mutable-content; beside a design's data envelope, not in it")
    func payload() throws {
        let payload = try built { $0.imageURL = "https://example.com/chart.png?w=600" }
        #expect(payload["image_url"] == "https://example.com/chart.png?w=600")
        #expect(payload["aps"]?["mutable-content"] == 1)
        let enveloped = try built {
            $0.imageURL = "https://example.com/a.jpg"
            $0.data = [#"{"k": 1}"#]
            $0.dataEnvelope = "openclaw"
        }
        #expect(enveloped["openclaw"] == ["k": 1] && enveloped["image_url"] == "https://example.com/a.jpg")
    }

    @Test("https only, no spaces or control characters, at most 2048 characters, on an alert only")
    func refusals() {
        for url in [
            "http://example.com/a.png", "ftp://x/y", "example.com/a.png", "https://", "https://a b/c",
            "https://example.com/\u{7}", "https://example.com/a\u{2028}b", "https:///path",
        ] {
            #expect(refusal { $0.imageURL = url }.contains("must be an https:// URL"), "\(url)")
        }
        let long = "https://example.com/" + String(repeating: "a", count: PushSpecification.imageURLLimit)
        #expect(refusal { $0.imageURL = long }.contains("longer than 2048 characters"))
        #expect(
            refusal {
                $0.content.title = nil
                $0.content.badge = 1
                $0.imageURL = "https://example.com/a.png"
            }.contains("needs an alert"))
        #expect(
            refusal {
                $0.payloadFile = Data(#"{"aps": {"alert": "x"}}"#.utf8)
                $0.imageURL = "https://example.com/a.png"
            }.contains("cannot be combined with --image"))
    }

    @Test("an encrypted send carries the URL sealed, never in clear")
    func encrypted() throws {
        var spec = PushSpecification()
        spec.content.title = "Scan"
        spec.imageURL = "https://example.com/private/scan.png"
        spec.encrypt = true
        let built = try spec.build(bundleID: "com.example.app").request
        #expect(!String(decoding: built.payload, as: UTF8.self).contains("example.com"))
        let sealed = try #require(built.sealedContent)
        #expect(
            String(decoding: sealed, as: UTF8.self).contains(#""image_url":"https:\/\/example.com"#)
                || String(decoding: sealed, as: UTF8.self).contains(#""image_url":"https://example.com"#))
    }
}
