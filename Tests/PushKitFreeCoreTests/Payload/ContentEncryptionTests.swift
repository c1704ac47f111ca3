import Crypto
import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("payload: content encryption")
struct ContentEncryptionTests {
    let key = try! ContentKey(bytes: Data((0..<32).map { UInt8($0) }))

    @Test("what is sealed opens to the same bytes with the key, and with no other key")
    func roundTrip() throws {
        let plaintext = Data(#"{"aps":{"alert":{"body":"the launch code"}}}"#.utf8)
        let sealed = try ContentSealing.seal(plaintext, with: key)
        #expect(sealed.count == ContentSealing.nonceByteCount + plaintext.count + ContentSealing.tagByteCount)
        #expect(try ContentSealing.open(sealed, with: key) == plaintext)
        // The format is CryptoKit's combined box: nonce, ciphertext, tag.
        let box = try AES.GCM.SealedBox(combined: sealed)
        #expect(Data(box.nonce) == sealed.prefix(12))
        #expect(box.tag == sealed.suffix(16))
        #expect(throws: (any Error).self) { try ContentSealing.open(sealed, with: ContentKey.random()) }
        var tampered = sealed
        tampered[20] ^= 1
        #expect(throws: (any Error).self) { try ContentSealing.open(tampered, with: key) }
    }

    @Test("every seal takes a fresh nonce: the same content never seals the same way twice")
    func nonceUniqueness() throws {
        let plaintext = Data("same content".utf8)
        let sealed = try (0..<200).map { _ in try ContentSealing.seal(plaintext, with: key) }
        #expect(Set(sealed.map { $0.prefix(ContentSealing.nonceByteCount) }).count == sealed.count)
        #expect(Set(sealed).count == sealed.count)
    }

    @Test("a key is 32 bytes of standard base64; anything else is refused without quoting it")
    func keyParsing() throws {
        let text = key.base64
        #expect(text.count == 44)
        #expect(try ContentKey(base64: text) == key)
        // One key, one spelling: white space, URL-safe letters or unused low bits are refused.
        let chars = Array(text)
        // The fixture's last byte, 0x1f, is "8" (60) then "="; "9" (61) sets bits no byte holds.
        #expect(chars[42] == "8" && chars[43] == "=")
        let nonCanonical = String(chars.dropLast(2)) + "9="
        for bad in [
            "", "not base64!", Data(repeating: 7, count: 16).base64EncodedString(), String(text.dropLast(4)),
            text + "\n", " " + text, nonCanonical, text.replacingOccurrences(of: "E", with: "-"),
        ] {
            let error = try #require(throws: ContentKeyError.self) { try ContentKey(base64: bad) }
            #expect(error.exitStatus == .dataError)
            #expect(bad.isEmpty || !error.message.contains(bad))
        }
        #expect(throws: ContentKeyError.self) { try ContentKey(bytes: Data(count: 31)) }
        #expect(ContentKey.random() != ContentKey.random())
        #expect(ContentKey.random().base64.count == 44)
        // Its description never holds the key, so it cannot be logged by accident.
        #expect(!"\(key)".contains(text) && !String(reflecting: key).contains(text))
        #expect(
            !String(
                reflecting: DeliveryTarget(
                    deviceID: "a", token: try DeviceToken(validating: String(repeating: "ab", count: 32)),
                    recordedEnvironment: nil, contentKey: key)
            ).contains(text))
    }

    @Test("an encrypted alert: only the placeholder and mutable-content in clear, the whole payload sealed")
    func buildsEncryptedRequest() throws {
        var spec = PushSpecification()
        spec.content.title = "Secret"
        spec.content.body = "the launch code"
        spec.data = [#"{"message_id":"42"}"#]
        let clear = try spec.build(bundleID: "com.example.App").request
        spec.encrypt = true
        let request = try spec.build(bundleID: "com.example.App").request
        #expect(
            try JSONValue.parse(request.payload) == ["aps": ["alert": ["title": "New message"], "mutable-content": 1]])
        #expect(request.sealedContent == clear.payload)
        let body = try request.body(for: key)
        let members = try #require(try JSONValue.parse(body).objectValue)
        #expect(Set(members.keys) == ["aps", "enc"])
        #expect(members["aps"] == ["alert": ["title": "New message"], "mutable-content": 1])
        let enc = try #require(members["enc"]?.stringValue)
        let sealed = try #require(Data(base64Encoded: enc))
        #expect(try ContentSealing.open(sealed, with: key) == clear.payload)
        #expect(
            body.count
                == ContentSealing.payloadSize(clearBytes: request.payload.count, contentBytes: clear.payload.count))
        #expect(!String(decoding: body, as: UTF8.self).contains("launch"))
        // A device without a key gets nothing: never the clear payload.
        #expect(throws: ContentKeyError.self) { try request.body(for: nil) }
        // A send in clear is unchanged.
        #expect(try clear.body(for: nil) == clear.payload && clear.sealedContent == nil)
    }

    @Test("the placeholder is configurable: flags over the configuration, either part may go")
    func placeholder() throws {
        var spec = PushSpecification()
        spec.content.body = "hi"
        var defaults = EncryptionDefaults(encrypt: true, placeholderTitle: "Sven", placeholderBody: "Open to read")
        #expect(
            try JSONValue.parse(spec.build(bundleID: "a.b", encryption: defaults).request.payload)
                == ["aps": ["alert": ["title": "Sven", "body": "Open to read"], "mutable-content": 1]])
        spec.placeholderTitle = ""
        spec.placeholderBody = "New reply"
        #expect(
            try JSONValue.parse(spec.build(bundleID: "a.b", encryption: defaults).request.payload)
                == ["aps": ["alert": ["body": "New reply"], "mutable-content": 1]])
        spec.placeholderBody = ""
        #expect(throws: PayloadError.self) { try spec.build(bundleID: "a.b", encryption: defaults) }
        // A placeholder that leaves no room for the content is refused, naming it.
        spec.placeholderBody = String(repeating: "p", count: 4050)
        let error = try #require(throws: PayloadError.self) { try spec.build(bundleID: "a.b", encryption: defaults) }
        #expect(error.description.contains("placeholder"))
        // The configuration's default applies unless the send says; --no-encrypt sends in clear.
        spec = PushSpecification()
        spec.content.body = "hi"
        #expect(try spec.build(bundleID: "a.b", encryption: defaults).request.sealedContent != nil)
        spec.encrypt = false
        #expect(try spec.build(bundleID: "a.b", encryption: defaults).request.sealedContent == nil)
        defaults.encrypt = false
        spec.encrypt = nil
        #expect(try spec.build(bundleID: "a.b", encryption: defaults).request.sealedContent == nil)
    }

    @Test("only alerts are encrypted: a background push or a Live Activity is refused, never sent in clear")
    func alertsOnly() throws {
        var spec = PushSpecification()
        spec.pushType = .background
        spec.data = [#"{"a":1}"#]
        spec.encrypt = true
        let error = try #require(throws: PayloadError.self) { try spec.build(bundleID: "a.b") }
        #expect(error.settingMessage?.settings.contains(.encrypt) == true)
        #expect(error.exitStatus == .dataError)
    }

    @Test("a background wake is never encrypted: content-available, by flag or in a complete payload, is refused")
    func noSilentEncryptedPush() throws {
        var spec = PushSpecification()
        spec.content.contentAvailable = true
        spec.encrypt = true
        for body in [nil, "hi"] {
            spec.content.body = body
            let error = try #require(throws: PayloadError.self) { try spec.build(bundleID: "a.b") }
            #expect(error.settingMessage?.settings == [.encrypt, .contentAvailable, .encrypt])
        }
        var file = PushSpecification()
        file.encrypt = true
        file.payloadFile = Data(#"{"aps": {"alert": "x", "content-available": 1}}"#.utf8)
        #expect(throws: PayloadError.self) { try file.build(bundleID: "a.b") }
        file.payloadFile = Data(#"{"aps": {"alert": "x", "content-available": 0}}"#.utf8)
        #expect(try file.build(bundleID: "a.b").request.sealedContent != nil, "0 asks for no wake")
    }

    @Test("the sealed payload is fitted so that the encrypted one stays within APNs' 4096 bytes", arguments: [1, 2, 3])
    func fitsOnceEncrypted(seed: Int) throws {
        var spec = PushSpecification()
        spec.content.title = String(repeating: "T", count: seed)
        spec.content.body = String(repeating: "é👍🏽a", count: 3000)
        spec.encrypt = true
        let built = try spec.build(bundleID: "a.b")
        #expect(built.shortened)
        let request = built.request
        let content = try #require(request.sealedContent)
        let body = try request.body(for: key)
        #expect(body.count <= 4096)
        #expect(
            body.count == ContentSealing.payloadSize(clearBytes: request.payload.count, contentBytes: content.count))
        // Not shortened further than the limit needs: one more character would not fit.
        #expect(body.count > 4096 - 24)
        let enc = try #require(try JSONValue.parse(body).objectValue?["enc"]?.stringValue)
        let sealed = try #require(Data(base64Encoded: enc))
        let inner = try JSONValue.parse(try ContentSealing.open(sealed, with: key))
        #expect(
            inner.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue?.hasSuffix("…") == true)
    }

    @Test("the content limit is exact: the largest content whose sealed payload fits, and one byte more does not")
    func contentLimit() {
        for clear in [40, 57, 58, 59, 100] {
            let limit = ContentSealing.contentLimit(clearBytes: clear, limit: 4096)
            #expect(ContentSealing.payloadSize(clearBytes: clear, contentBytes: limit) <= 4096)
            // base64 grows by 4 for every 3 bytes: 3 more bytes always overflow.
            #expect(ContentSealing.payloadSize(clearBytes: clear, contentBytes: limit + 3) > 4096)
        }
        #expect(ContentSealing.contentLimit(clearBytes: 4096, limit: 4096) < 0)
    }

    @Test("a complete payload too large once encrypted is refused with the smaller limit")
    func payloadFileTooLarge() throws {
        var spec = PushSpecification()
        let filler = String(repeating: "x", count: 3500)
        spec.payloadFile = Data(#"{"aps":{"alert":"hi"},"pad":"\#(filler)"}"#.utf8)
        #expect(try spec.build(bundleID: "a.b").request.payload.count < 4096)
        spec.encrypt = true
        let error = try #require(throws: PayloadError.self) { try spec.build(bundleID: "a.b") }
        guard case .tooLarge(_, let limit, let detail) = error else {
            Issue.record("expected tooLarge, got \(error)")
            return
        }
        #expect(limit < 3100 && detail.contains("encrypted"))
    }

    @Test("the config file's encrypt, placeholder_title and placeholder_body")
    func configured() throws {
        func defaults(_ values: [String: JSONValue]) throws(ConfigurationError) -> EncryptionDefaults {
            try EncryptionDefaults.configured(in: ConfigurationFile(path: "/c.json", exists: true, values: values))
        }
        #expect(
            try defaults([:])
                == EncryptionDefaults(encrypt: false, placeholderTitle: "New message", placeholderBody: nil))
        #expect(
            try defaults(["encrypt": true, "placeholder_title": .null, "placeholder_body": "Tap to read"])
                == EncryptionDefaults(encrypt: true, placeholderTitle: nil, placeholderBody: "Tap to read"))
        #expect(throws: ConfigurationError.self) { try defaults(["encrypt": "maybe"]) }
        #expect(throws: ConfigurationError.self) { try defaults(["placeholder_title": 3]) }
        #expect(throws: ConfigurationError.self) { try defaults(["placeholder_title": ""]) }
        #expect(ConfigurationFile(path: "/c.json", exists: true, values: ["encrypt": true]).warnings.isEmpty)
    }

    @Test("a run whose every device was refused exits 65; with some delivered, 1")
    func refusedExitStatus() throws {
        let target = DeliveryTarget(
            deviceID: "a", token: try DeviceToken(validating: String(repeating: "ab", count: 32)),
            recordedEnvironment: nil)
        var refused = DeliveryResult(target: target, environment: .production)
        refused.outcome = .refused
        refused.reason = ContentKeyError.missing
        var delivered = DeliveryResult(target: target, environment: .production)
        delivered.outcome = .delivered
        delivered.status = 200
        let all = DeliveryReport(results: [refused], seconds: 0)
        #expect(all.exitStatus == .dataError)
        #expect(all.failed == 1 && all.refused == 1)
        #expect(all.summary.hasPrefix("0 delivered, 1 failed (1 refused: no content key)"))
        #expect(all.lines(fullTokens: false).contains("refused      a  abababab…abab  not sent: no content key"))
        #expect(DeliveryReport(results: [refused, delivered], seconds: 0).exitStatus == .partialFailure)
    }
}
