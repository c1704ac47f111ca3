import Foundation
import Testing

/// Images in the notification, end to end: `send-push --image`, the send body's `image`, ntfy's
/// `Attach` and Bark's `image`, as the emulator received them.
@Suite("images: every way in carries the URL and mutable-content")
struct ImageEndToEndTests {
    let setup: ProviderSetup
    static let image = "https://example.com/charts/build-42.png"

    init() throws {
        setup = try ProviderSetup()
    }

    func environment(_ emulator: RunningEmulator) -> [String: String] { setup.clients(of: emulator) }

    /// The payloads the emulator received, in order.
    static func payloads(_ emulator: RunningEmulator, count: Int) -> [[String: Any]] {
        emulator.waitForRecords(count).compactMap { $0["payload"] as? [String: Any] }
    }

    static func carriesImage(_ payload: [String: Any]?) -> Bool {
        payload?["image_url"] as? String == image
            && (payload?["aps"] as? [String: Any])?["mutable-content"] as? Int == 1
    }

    @Test("send-push --image: the URL beside aps with mutable-content; http refused with 65, nothing sent")
    func sendPush() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = environment(emulator)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: env).expectSuccess()
        try BuiltTool.run("send-push", ["--title", "Build 42", "--image", Self.image], environment: env)
            .expectSuccess()
        #expect(Self.carriesImage(Self.payloads(emulator, count: 1).first))
        let refused = try BuiltTool.run(
            "send-push", ["--title", "t", "--image", "http://example.com/a.png"], environment: env)
        #expect(refused.status == 65 && refused.stderr.contains("--image must be an https:// URL"), "\(refused.stderr)")
        #expect(emulator.records().count == 1, "nothing sent")
    }

    @Test("send-push --image keeps the image rule of apns-emulator --strict-payload")
    func strictPayload() throws {
        let emulator = try RunningEmulator(["--quiet", "--strict-payload"], environment: setup.environment)
        let env = environment(emulator)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: env).expectSuccess()
        try BuiltTool.run("send-push", ["--title", "Build 42", "--image", Self.image], environment: env)
            .expectSuccess()
        let record = try #require(emulator.waitForRecords(1).first)
        #expect(record["status"] as? Int == 200, "\(record)")
        #expect(Self.carriesImage(record["payload"] as? [String: Any]))
    }

    @Test("serve: a send body's image, ntfy's Attach and Bark's image")
    func serve() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = environment(emulator)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: env).expectSuccess()
        let server = try RunningServe(["--no-auth"], environment: env)
        let sent = try server.request(
            "POST", "/api/v1/notifications/send", json: #"{"title": "Build 42", "image": "\#(Self.image)"}"#)
        #expect(sent.status == 200, "\(sent.body)")
        let ntfy = try server.request(
            "POST", "/phone", body: Data("deploy finished".utf8), headers: ["Attach": Self.image])
        #expect(ntfy.status == 200, "\(ntfy.body)")
        let ntfyJSON = try server.request(
            "POST", "/", json: #"{"topic": "phone", "message": "m", "attach": "\#(Self.image)"}"#)
        #expect(ntfyJSON.status == 200, "\(ntfyJSON.body)")
        let encoded = Self.image.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let bark = try server.request("GET", "/phone/Build/finished?image=\(encoded)")
        #expect(bark.status == 200, "\(bark.body)")
        let payloads = Self.payloads(emulator, count: 4)
        #expect(payloads.count == 4 && payloads.allSatisfy(Self.carriesImage), "\(payloads)")

        let plain = try server.request("GET", "/phone/Build/finished?image=http%3A%2F%2Fexample.com%2Fa.png")
        #expect(plain.status == 400 && plain.body.contains("https://"), "\(plain.body)")
        let bodyless = try server.request(
            "POST", "/api/v1/notifications/send", json: #"{"title": "t", "image": "ftp://x/y"}"#)
        #expect(bodyless.status == 400 && bodyless.error?.hasPrefix("\"image\" must be") == true, "\(bodyless.body)")
        #expect(emulator.records().count == 4, "nothing sent for a refused image")
    }
}
