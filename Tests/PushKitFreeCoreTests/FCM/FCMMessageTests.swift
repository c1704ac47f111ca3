import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("FCM messages from the APNs notification")
struct FCMMessageTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func token() throws -> FCMDeviceToken { try FCMDeviceToken(validating: FCMFixtures.tokenText) }

    /// The message for what `configure` sets on a plain alert, built as `send-push` builds it.
    func message(
        validateOnly: Bool = false, _ configure: (inout PushSpecification) -> Void
    ) throws -> FCMMessage {
        var specification = PushSpecification()
        configure(&specification)
        let request = try specification.build(bundleID: "com.example.app").request
        return try FCMMessage(
            token: try token(), request: request, payload: request.payload, now: now, validateOnly: validateOnly)
    }

    func refusal(_ configure: (inout PushSpecification) -> Void) -> FCMMessageError? {
        do {
            _ = try message(configure)
            return nil
        } catch {
            return error as? FCMMessageError
        }
    }

    @Test("one full example, byte for byte")
    func golden() throws {
        let built = try message {
            $0.content.title = "Build finished"
            $0.content.body = "All 42 tests passed"
            $0.content.threadID = "ci"
            $0.content.interruptionLevel = .timeSensitive
            $0.data = [#"{"message_id":"42","attempt":3,"meta":{"ok":true}}"#]
            $0.collapseID = "ci-main"
            $0.expiration = 1_800_000_600
        }
        let expected =
            #"{"message":{"# + #""android":{"collapse_key":"ci-main","priority":"HIGH","ttl":"600s"},"#
            + #""apns":{"headers":{"apns-collapse-id":"ci-main","apns-expiration":"1800000600","apns-priority":"10","#
            + #""apns-push-type":"alert"},"payload":{"aps":{"alert":{"body":"All 42 tests passed","#
            + #""title":"Build finished"},"interruption-level":"time-sensitive","sound":"default","thread-id":"ci"},"#
            + #""attempt":3,"message_id":"42","meta":{"ok":true}}},"#
            + #""data":{"attempt":"3","message_id":"42","meta":"{\"ok\":true}"},"#
            + #""notification":{"body":"All 42 tests passed","title":"Build finished"},"#
            + #""token":"\#(FCMFixtures.tokenText)"}}"#
        #expect(String(decoding: built.body, as: UTF8.self) == expected)
    }

    @Test("notification takes the alert's title and body; a string alert is the body")
    func notification() throws {
        let titled = try message {
            $0.content.title = "T"
            $0.content.subtitle = "S"
        }
        #expect(titled.message["notification"] == ["title": "T"])
        let request = APNsRequest(bundleID: "com.example.app", payload: Data(#"{"aps":{"alert":"just text"}}"#.utf8))
        let plain = try FCMMessage(token: try token(), request: request, payload: request.payload, now: now)
        #expect(plain.message["notification"] == ["body": "just text"])
        #expect(plain.message["data"] == nil)
    }

    @Test("an image URL becomes FCM's notification.image, and stays in data for the app")
    func image() throws {
        let message = try message {
            $0.content.title = "Chart"
            $0.imageURL = "https://example.com/chart.png"
        }
        #expect(message.message["notification"] == ["title": "Chart", "image": "https://example.com/chart.png"])
        #expect(message.message["data"]?["image_url"] == "https://example.com/chart.png")
    }

    @Test("a background push is a data-only message of normal priority")
    func background() throws {
        let built = try message {
            $0.pushType = .background
            $0.data = [#"{"sync":"now"}"#]
        }
        #expect(built.message["notification"] == nil)
        #expect(built.message["data"] == ["sync": "now"])
        #expect(built.message["android"] == ["priority": "NORMAL"])
        #expect(built.message["apns"]?["headers"] == ["apns-push-type": "background", "apns-priority": "5"])
        #expect(built.message["apns"]?["payload"]?["aps"] == ["content-available": 1])
    }

    @Test("data values become strings: strings as they are, the rest as compact JSON")
    func dataStrings() throws {
        let built = try message {
            $0.content.body = "b"
            $0.data = [#"{"s":"x","n":1.5,"b":false,"z":null,"a":[1,"2"]}"#]
        }
        #expect(built.message["data"] == ["s": "x", "n": "1.5", "b": "false", "z": "null", "a": #"[1,"2"]"#])
    }

    @Test(
        "keys FCM reserves are refused",
        arguments: ["from", "notification", "message_type", "google.c.a.e", "gcm.notification.title"])
    func reservedKeys(_ key: String) {
        let error = refusal {
            $0.content.body = "b"
            $0.data = [#"{"\#(key)":"x"}"#]
        }
        #expect(error == .reservedDataKey(key))
        #expect(error?.description.hasPrefix("the custom data key \"\(key)\" is reserved by FCM") == true)
    }

    @Test("keys that only look reserved are kept")
    func nearlyReservedKeys() throws {
        let built = try message {
            $0.content.body = "b"
            $0.data = [#"{"fromage":"x","googled":"y","gcm":"z"}"#]
        }
        #expect(built.message["data"] == ["fromage": "x", "googled": "y", "gcm": "z"])
    }

    @Test("a Live Activity is refused, and so is every other push type only APNs carries")
    func unsupportedTypes() throws {
        let request = APNsRequest(
            bundleID: "com.example.app", pushType: .liveactivity,
            payload: Data(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8))
        #expect {
            try FCMMessage(token: try token(), request: request, payload: request.payload, now: now)
        } throws: { error in
            guard case .unsupportedPushType(.liveactivity, _)? = error as? FCMMessageError else { return false }
            return "\(error)".hasPrefix("the push type liveactivity cannot be sent to an FCM registration token")
        }
        let carried = APNsPushType.allCases.filter { FCMMessage.unsupportedPushTypes[$0] == nil }
        #expect(carried == [.alert, .background])
    }

    @Test("over 4,096 bytes of notification and data is refused")
    func sizeLimit() throws {
        // The notification {"body":"…"} is 11 bytes around the body.
        let largest = APNsRequest(
            bundleID: "com.example.app",
            payload: Data(#"{"aps":{"alert":{"body":"\#(String(repeating: "a", count: 4085))"}}}"#.utf8))
        let fits = try FCMMessage(token: try token(), request: largest, payload: largest.payload, now: now)
        #expect(fits.message["notification"]?["body"]?.stringValue?.count == 4085)
        let oneMore = APNsRequest(
            bundleID: "com.example.app",
            payload: Data(#"{"aps":{"alert":{"body":"\#(String(repeating: "a", count: 4086))"}}}"#.utf8))
        #expect(throws: FCMMessageError.tooLarge(size: 4097, limit: 4096)) {
            try FCMMessage(token: try token(), request: oneMore, payload: oneMore.payload, now: now)
        }
        let request = APNsRequest(
            bundleID: "com.example.app",
            payload: Data(
                #"{"aps":{"alert":{"body":"\#(String(repeating: "a", count: 2100))"}},"k":"\#(String(repeating: "b", count: 2000))"}"#
                    .utf8))
        #expect {
            try FCMMessage(token: try token(), request: request, payload: request.payload, now: now)
        } throws: { ($0 as? FCMMessageError) == .tooLarge(size: 2111 + 2008, limit: 4096) }
    }

    @Test("android priority: HIGH only for time-sensitive or critical alerts at priority 10")
    func androidPriority() {
        #expect(FCMMessage.androidPriority(priority: .immediate, interruptionLevel: .timeSensitive) == "HIGH")
        #expect(FCMMessage.androidPriority(priority: .immediate, interruptionLevel: .critical) == "HIGH")
        #expect(FCMMessage.androidPriority(priority: .immediate, interruptionLevel: .active) == "NORMAL")
        #expect(FCMMessage.androidPriority(priority: .immediate, interruptionLevel: nil) == "NORMAL")
        #expect(FCMMessage.androidPriority(priority: .considerPower, interruptionLevel: .critical) == "NORMAL")
    }

    @Test("ttl counts from now to the expiration; 0 and a past time are 0s, at most 28 days")
    func timeToLive() throws {
        #expect(FCMMessage.timeToLive(expiration: 0, now: now) == 0)
        #expect(FCMMessage.timeToLive(expiration: 1_799_999_000, now: now) == 0)
        #expect(FCMMessage.timeToLive(expiration: 1_800_003_600, now: now) == 3600)
        #expect(FCMMessage.timeToLive(expiration: 1_900_000_000, now: now) == 2_419_200)
        let once = try message {
            $0.content.body = "b"
            $0.expiration = 0
        }
        #expect(once.message["android"]?["ttl"] == "0s")
        #expect(once.message["apns"]?["headers"]?["apns-expiration"] == "0")
    }

    @Test("validate_only sits beside message when asked, and nowhere otherwise")
    func validateOnly() throws {
        let checked = try message(validateOnly: true) { $0.content.body = "b" }
        #expect(try JSONValue.parse(checked.body)["validate_only"] == true)
        let sent = try message { $0.content.body = "b" }
        #expect(try JSONValue.parse(sent.body)["validate_only"] == nil)
    }

    @Test("the request: POST to the project's messages:send with the bearer token")
    func request() throws {
        let built = try message { $0.content.body = "b" }
        let request = built.http2Request(
            baseURL: "https://fcm.googleapis.com/", projectID: "demo-project-1a2b3", accessToken: "ya29.x", tag: 3)
        #expect(request.url == "https://fcm.googleapis.com/v1/projects/demo-project-1a2b3/messages:send")
        #expect(request.method == .post)
        #expect(request.headers.first { $0.name == "authorization" }?.value == "Bearer ya29.x")
        #expect(request.body == built.body)
    }

    @Test("an encrypted send's sealed content travels in data and in the APNs payload")
    func encrypted() throws {
        var specification = PushSpecification()
        specification.content.body = "secret"
        specification.encrypt = true
        let request = try specification.build(bundleID: "com.example.app").request
        let key = try ContentKey(bytes: Data(repeating: 7, count: 32))
        let payload = try request.body(for: key)
        let built = try FCMMessage(token: try token(), request: request, payload: payload, now: now)
        let sealed = try #require(built.message["data"]?["enc"]?.stringValue)
        #expect(built.message["apns"]?["payload"]?["enc"] == .string(sealed))
        #expect(built.message["notification"] == ["title": "New message"])
        #expect(!String(decoding: built.body, as: UTF8.self).contains("secret"))
    }
}
