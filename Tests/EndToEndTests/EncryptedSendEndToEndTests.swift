import Foundation
import Testing

/// Content only the phone can read: devices' content keys, `send-push --encrypt` and serve's
/// `encrypt`, against the emulator, with what reached it decrypted by Python's `cryptography`
/// (a client nobody here wrote), as the app's notification service extension would.
@Suite("encrypted sends: content only the phone can read")
struct EncryptedSendEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("state/devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    /// The placeholder alone, as it travels in clear with the default settings.
    static var placeholder: NSDictionary { ["alert": ["title": "New message"], "mutable-content": 1] }

    /// Opens each `enc` with its key, as the app would (`openSealed`).
    func decrypt(_ sealed: [(key: String, enc: String)]) throws -> [String] {
        try openSealed(sealed)
    }

    /// The device's content key as the state file holds it.
    func storedKey(_ id: String) throws -> String {
        try #require(try stateFileDevices(devicesFile)[id]?["content_key"] as? String)
    }

    func json(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    @Test("make-content-key prints the key once; the state file keeps it 0600; list shows it only when asked")
    func makeContentKey() throws {
        let env = clientEnvironment(nil)
        try register("phone", hexToken(1), env: env)
        let made = try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: env)
        made.expectSuccess()
        let key = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(made.stdout == key + "\n" && Data(base64Encoded: key)?.count == 32)
        #expect(!made.stderr.contains(key))
        #expect(try storedKey("phone") == key)
        let mode = try FileManager.default.attributesOfItem(atPath: devicesFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        for arguments in [["list"], ["list", "--json"], ["list", "--full"], ["add", "phone", hexToken(1)]] {
            let run = try BuiltTool.run("register-apns", arguments, environment: env)
            run.expectSuccess()
            #expect(!run.stdout.contains(key) && !run.stderr.contains(key), "\(arguments)")
        }
        #expect(try BuiltTool.run("register-apns", ["list"], environment: env).stdout.contains("CONTENT KEY"))
        #expect(try storedKey("phone") == key, "a registration without a key keeps the key")
        let shown = try BuiltTool.run("register-apns", ["list", "--show-content-keys"], environment: env)
        #expect(shown.stdout.contains(key))
        let shownJSON = try BuiltTool.run("register-apns", ["list", "--json", "--show-content-keys"], environment: env)
        #expect(shownJSON.stdout.contains(#""content_key":"\#(key)""#))
        // A second key is not made over the first unless --replace; an unknown device is 65.
        let again = try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: env)
        #expect(again.status == 65 && again.stdout.isEmpty && again.stderr.contains("--replace"), "\(again.stderr)")
        #expect(try storedKey("phone") == key)
        let replaced = try BuiltTool.run("register-apns", ["make-content-key", "phone", "--replace"], environment: env)
        replaced.expectSuccess()
        #expect(try storedKey("phone") == replaced.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try storedKey("phone") != key)
        let unknown = try BuiltTool.run("register-apns", ["make-content-key", "tablet"], environment: env)
        #expect(unknown.status == 65 && unknown.stdout.isEmpty)
    }

    @Test("a key that is not base64 or not 32 bytes: exit 65, nothing written; --content-key-file reads one")
    func badKeys() throws {
        let env = clientEnvironment(nil)
        try register("phone", hexToken(1), env: env)
        let before = try Data(contentsOf: URL(fileURLWithPath: devicesFile))
        let short = Data(repeating: 1, count: 16).base64EncodedString()
        for (arguments, stdin, message) in [
            (["--content-key", "not base64!"], nil, "not base64"),
            (["--content-key", short], nil, "32 bytes, not 16"),
            (["--content-key-file", "-"], Data("%%%\n".utf8), "not base64"),
        ] as [([String], Data?, String)] {
            let run = try BuiltTool.run(
                "register-apns", ["add", "phone", hexToken(1)] + arguments, environment: env, stdin: stdin)
            #expect(run.status == 65 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains(short))
            #expect(try Data(contentsOf: URL(fileURLWithPath: devicesFile)) == before, "nothing written")
        }
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let file = try setup.directory.write("key.txt", key + "\n")
        let added = try BuiltTool.run(
            "register-apns", ["add", "phone", hexToken(1), "--content-key-file", file], environment: env)
        added.expectSuccess()
        #expect(added.stdout.contains("content key") && !added.stdout.contains(key))
        #expect(try storedKey("phone") == key)
    }

    @Test("send-push --encrypt: in clear only the placeholder; enc opens to the payload; no key, no send")
    func encryptedSend() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        try register("tablet", hexToken(2), env: env)
        try register("old-phone", hexToken(3), env: env)
        try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: env).expectSuccess()
        let tabletKey = Data((100..<132).map { UInt8($0) }).base64EncodedString()
        try BuiltTool.run(
            "register-apns", ["add", "tablet", hexToken(2), "--content-key-file", "-"], environment: env,
            stdin: Data(tabletKey.utf8)
        ).expectSuccess()
        let content = ["--title", "Secret", "--body", "the launch code is 0000", "--data", #"{"message_id":"42"}"#]

        // What would have been sent in clear, for comparison.
        let dry = try BuiltTool.run(
            "send-push", content + ["--device", "phone", "--dry-run", "--json", "--no-encrypt"], environment: env)
        dry.expectSuccess()
        let expected = try #require(try json(dry.stdout)["payload"] as? NSDictionary)

        // A dry run shows what would travel in clear; the device without a key as refused.
        let dryEncrypted = try BuiltTool.run("send-push", content + ["--encrypt", "--dry-run"], environment: env)
        dryEncrypted.expectSuccess()
        #expect(dryEncrypted.stdout.contains(#""enc":"<"#) && dryEncrypted.stdout.contains("refused: no content key"))
        #expect(!dryEncrypted.stdout.contains("launch") && !dryEncrypted.stdout.contains(tabletKey))
        let dryJSON = try BuiltTool.run(
            "send-push", content + ["--encrypt", "--dry-run", "--json", "--device", "old-phone"], environment: env)
        let refusedRequest = try json(dryJSON.stdout)
        #expect(
            refusedRequest["payload"] is NSNull
                && (refusedRequest["refused"] as? String)?.contains("no content key") == true)
        #expect(emulator.records().isEmpty)

        let run = try BuiltTool.run("send-push", content + ["--encrypt"], environment: env)
        #expect(run.status == 1, "one device refused: \(run.stdout)\(run.stderr)")
        let refusedLine = try #require(run.stdout.split(separator: "\n").first { $0.contains("old-phone") })
        #expect(refusedLine.hasPrefix("refused") && refusedLine.contains("no content key"), "\(refusedLine)")
        #expect(run.stderr.contains("2 delivered, 1 failed (1 refused: no content key)"), "\(run.stderr)")

        let records = emulator.waitForRecords(2)
        #expect(records.count == 2)
        #expect(
            !records.contains { $0["device_token"] as? String == hexToken(3) }, "nothing for the device without a key")
        var sealed: [(key: String, enc: String)] = []
        for record in records {
            let payload = try #require(record["payload"] as? [String: Any])
            #expect(Set(payload.keys) == ["aps", "enc"])
            #expect(payload["aps"] as? NSDictionary == Self.placeholder)
            #expect(record["push_type"] as? String == "alert")
            let clear = String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self)
            #expect(!clear.contains("launch") && !clear.contains("Secret") && !clear.contains("message_id"))
            let id = record["device_token"] as? String == hexToken(1) ? "phone" : "tablet"
            sealed.append((try storedKey(id), try #require(payload["enc"] as? String)))
        }
        #expect(sealed[0].enc != sealed[1].enc)
        for plaintext in try decrypt(sealed) {
            #expect(try json(plaintext) == expected, "\(plaintext)")
        }

        // Only devices without a key: nothing is sent, exit 65.
        let none = try BuiltTool.run("send-push", content + ["--encrypt", "--device", "old-phone"], environment: env)
        #expect(none.status == 65 && none.stdout.contains("refused"), "\(none.stdout)\(none.stderr)")
        #expect(emulator.records().count == 2)
    }

    @Test("the config's encrypt makes it the default, with its placeholder; --no-encrypt sends in clear")
    func configuredDefault() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write(
            "config.json", #"{"encrypt": true, "placeholder_title": "Sven", "placeholder_body": "Open to read"}"#)
        try register("phone", hexToken(1), env: env)
        try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: env).expectSuccess()
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        let line = check.stdout.split(separator: "\n").first { $0.contains(" encrypt ") } ?? ""
        #expect(line.contains("true") && line.contains(#""Sven" / "Open to read""#), "\(check.stdout)")
        try BuiltTool.run("send-push", ["--body", "private"], environment: env).expectSuccess()
        try BuiltTool.run("send-push", ["--body", "public", "--no-encrypt"], environment: env).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--body", "private", "--placeholder-title", "", "--placeholder-body", "New reply"],
            environment: env
        ).expectSuccess()
        let payloads = emulator.waitForRecords(3).compactMap { $0["payload"] as? [String: Any] }
        #expect(payloads.count == 3)
        #expect(
            payloads[0]["aps"] as? NSDictionary
                == ["alert": ["title": "Sven", "body": "Open to read"], "mutable-content": 1])
        let plain = try decrypt([(try storedKey("phone"), try #require(payloads[0]["enc"] as? String))])
        #expect(try plain.map(json) == [["aps": ["alert": ["body": "private"], "sound": "default"]]])
        #expect(
            payloads[1]["enc"] == nil
                && (payloads[1]["aps"] as? NSDictionary)?["alert"] as? NSDictionary == ["body": "public"])
        #expect(payloads[2]["aps"] as? NSDictionary == ["alert": ["body": "New reply"], "mutable-content": 1])
        // A background push is never sent in clear when encryption is the default: refused, 65.
        let background = try BuiltTool.run(
            "send-push", ["--push-type", "background", "--data", #"{"k":1}"#], environment: env)
        #expect(background.status == 65 && background.stderr.contains("--encrypt"), "\(background.stderr)")
        #expect(emulator.records().count == 3)
    }

    @Test(
        "--encrypt with --content-available is refused (64; 65 with the config's encrypt or a payload file's wake), nothing sent"
    )
    func silentPushNotEncrypted() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: env).expectSuccess()
        for extra in [[], ["--body", "hi"]] {
            let flags = try BuiltTool.run("send-push", ["--encrypt", "--content-available"] + extra, environment: env)
            #expect(flags.status == 64, "\(flags.stderr)")
            #expect(
                flags.stderr.contains("--encrypt and --content-available cannot go together")
                    && flags.stderr.contains("a silent push would show"), "\(flags.stderr)")
        }
        let wake = try setup.directory.write("wake.json", #"{"aps": {"content-available": 1}, "k": 1}"#)
        let file = try BuiltTool.run("send-push", ["--encrypt", "--payload-file", wake], environment: env)
        #expect(file.status == 65 && file.stderr.contains("cannot go together"), "\(file.stderr)")
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"encrypt": true}"#)
        let configured = try BuiltTool.run("send-push", ["--content-available"], environment: env)
        #expect(configured.status == 65, "\(configured.stderr)")
        #expect(configured.stderr.contains("--content-available cannot go together"), "\(configured.stderr)")
        #expect(emulator.records().isEmpty, "nothing reached APNs")
        // Without encryption the silent push goes as it is.
        try BuiltTool.run("send-push", ["--content-available", "--no-encrypt"], environment: env).expectSuccess()
        let aps = (emulator.waitForRecords(1).first?["payload"] as? [String: Any])?["aps"] as? NSDictionary
        #expect(aps == ["content-available": 1])
    }

    @Test("serve: a registration body's content_key, and a send route's encrypt")
    func serveRoutes() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = emulator.asAPNs(for: setup.environment.merging(clientSettings) { _, suite in suite })
        let server = try RunningServe(["--no-auth"], environment: env)
        let key = Data((50..<82).map { UInt8($0) }).base64EncodedString()
        let registered = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "phone", "apns_token": "\#(hexToken(1))", "content_key": "\#(key)"}"#)
        #expect(registered.status == 200 && !registered.body.contains(key), "\(registered.body)")
        let bad = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "tablet", "apns_token": "\#(hexToken(2))", "content_key": "abc"}"#)
        #expect(bad.status == 400 && bad.body.contains("content_key"), "\(bad.body)")
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "tablet", "apns_token": "\#(hexToken(2))"}"#)
        #expect(try storedKey("phone") == key)
        let listed = try server.request("GET", "/api/v1/devices")
        #expect(listed.status == 200 && !listed.body.contains(key))

        let sent = try server.request(
            "POST", "/api/v1/notifications/send",
            json: #"{"title": "Secret", "body": "the launch code", "data": {"k": 1}, "encrypt": true}"#)
        #expect(sent.status == 200, "\(sent.body)")
        let results = try #require(sent.json?["results"] as? [[String: Any]])
        let tablet = try #require(results.first { $0["device_id"] as? String == "tablet" })
        #expect(
            tablet["success"] as? Bool == false && (tablet["reason"] as? String)?.contains("no content key") == true)
        #expect(results.first { $0["device_id"] as? String == "phone" }?["success"] as? Bool == true)
        let records = emulator.waitForRecords(1)
        #expect(records.count == 1 && records.first?["device_token"] as? String == hexToken(1))
        let payload = try #require(records.first?["payload"] as? [String: Any])
        #expect(Set(payload.keys) == ["aps", "enc"])
        #expect(payload["aps"] as? NSDictionary == Self.placeholder)
        let plain = try decrypt([(key, try #require(payload["enc"] as? String))])
        // The OpenClaw route's profile is applied inside the sealed payload.
        let opened = try json(try #require(plain.first))
        #expect(
            (opened["aps"] as? NSDictionary)?["alert"] as? NSDictionary == [
                "title": "Secret", "body": "the launch code",
            ])
        #expect(opened["openclaw"] as? NSDictionary == ["k": 1])
        #expect(!server.stderr.contains(key))

        // With the config's encrypt, a route whose body says nothing (the gateway's hook) encrypts too.
        var configured = env
        configured["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"encrypt": true}"#)
        let encrypting = try RunningServe(["--no-auth"], environment: configured)
        let hook = try encrypting.request("POST", "/hooks/ios-notify", json: #"{"body": "private hook text"}"#)
        #expect(hook.status == 200, "\(hook.body)")
        let hookRecords = emulator.waitForRecords(2)
        #expect(hookRecords.count == 2 && hookRecords.last?["device_token"] as? String == hexToken(1))
        let hookPayload = try #require(hookRecords.last?["payload"] as? [String: Any])
        #expect(Set(hookPayload.keys) == ["aps", "enc"] && hookPayload["aps"] as? NSDictionary == Self.placeholder)
        let hookPlain = try decrypt([(key, try #require(hookPayload["enc"] as? String))])
        #expect(hookPlain.first?.contains("private hook text") == true)
    }
}
