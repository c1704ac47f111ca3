import Foundation
import Testing

/// The messages a newcomer meets first: each names what is wrong in words (not a library's call),
/// with the right exit status; machine-readable forms of the doctor and the dry run; and the
/// system-wide config a service user's commands find without `PUSHKIT_CONFIG`.
@Suite("newcomer messages, --json, the system-wide config")
struct NewcomerMessagesTests {
    @Test("serve on a port in use says so in words, exit 69")
    func portInUse() throws {
        let setup = try ProviderSetup()
        let first = try RunningServe(["--no-auth"], environment: setup.environment)
        let second = try BuiltTool.run(
            "register-apns", ["serve", "--no-auth", "--listen", "127.0.0.1:\(first.port)"],
            environment: setup.environment)
        #expect(second.status == 69)
        #expect(second.stderr.contains("the address is in use: another program listens there"), "\(second.stderr)")
        #expect(!second.stderr.contains("bind(descriptor"), "\(second.stderr)")
    }

    @Test("an RSA key, PKCS#8 or PKCS#1, is named as RSA, exit 78", arguments: ["pkcs8", "pkcs1"])
    func rsaKey(form: String) throws {
        let directory = try TemporaryDirectory()
        let key = directory.file("rsa.pem")
        let arguments =
            form == "pkcs8"
            ? ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key]
            : ["genrsa", "-traditional", "-out", key, "2048"]
        #expect(try BuiltTool.runSystem("openssl", arguments).status == 0)
        let result = try BuiltTool.run(
            "apns-jwt", ["--key-path", key, "--key-id", "ABCDE12345", "--team-id", "TEAM678901"],
            environment: ["HOME": directory.file("home")])
        #expect(result.status == 78)
        #expect(result.stderr.contains("holds an RSA key"), "\(result.stderr)")
    }

    @Test("a state directory that cannot be made names the setting that chose it")
    func stateDirectorySetting() throws {
        let directory = try TemporaryDirectory()
        let blocker = try directory.write("not-a-directory", "")
        let result = try BuiltTool.run(
            "register-apns", ["phone", String(repeating: "a1", count: 32)],
            environment: ["HOME": directory.file("home"), "PUSHKIT_STATE_DIR": blocker + "/state"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("in the state directory from PUSHKIT_STATE_DIR"), "\(result.stderr)")
    }

    @Test("one character is one character; send-push with nothing to send is a usage error")
    func wording() throws {
        let setup = try ProviderSetup()
        var environment = setup.environment
        environment["APNS_KEY_ID"] = "A"
        let short = try BuiltTool.run("apns-jwt", [], environment: environment)
        #expect(short.stderr.contains("has 1 character;"), "\(short.stderr)")
        let nothing = try BuiltTool.run("send-push", [], environment: setup.environment)
        #expect(nothing.status == 64 && nothing.stderr.contains("nothing to send"), "\(nothing.stderr)")
    }

    @Test("an unknown config key near a known one is suggested")
    func configKeySuggestion() throws {
        let setup = try ProviderSetup()
        var environment = setup.environment
        environment["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"bundel_id": "com.x"}"#)
        let checked = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(checked.stdout.contains(#"ignoring unknown key "bundel_id""#), "\(checked.stdout)")
        #expect(checked.stdout.contains(#"did you mean "bundle_id"?"#), "\(checked.stdout)")
    }

    @Test("apns-jwt check --json and send-push --dry-run --json parse, and say what the text says")
    func jsonForms() throws {
        let setup = try ProviderSetup()
        let checked = try BuiltTool.run("apns-jwt", ["check", "--json"], environment: setup.environment)
        #expect(checked.status == 0)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])
        #expect(report["ok"] as? Bool == true && report["problems"] as? Int == 0)
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["setting"] as? String == "key id" && $0["value"] as? String == "ABCDE12345" })

        var broken = setup.environment
        broken["APNS_KEY_ID"] = nil
        let failing = try BuiltTool.run("apns-jwt", ["check", "--json"], environment: broken)
        #expect(failing.status == 78)
        let failed = try #require(try JSONSerialization.jsonObject(with: Data(failing.stdout.utf8)) as? [String: Any])
        #expect(failed["ok"] as? Bool == false && failed["problems"] as? Int == 1)

        let token = String(repeating: "a1", count: 32)
        let dry = try BuiltTool.run(
            "send-push", ["--token", token, "--body", "hi", "--dry-run", "--json", "--full"],
            environment: setup.environment)
        #expect(dry.status == 0, "\(dry.stderr)")
        let request = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])
        #expect(request["url"] as? String == "https://api.push.apple.com/3/device/\(token)")
        #expect((request["headers"] as? [String: String])?["authorization"] == "bearer <provider token>")
        #expect(((request["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] != nil)
    }

    @Test("with no user config, the system-wide one (XDG_CONFIG_DIRS) is read, and check says which")
    func systemConfig() throws {
        let setup = try ProviderSetup()
        let system = setup.directory.file("xdg")
        try FileManager.default.createDirectory(atPath: system + "/pushkit-free", withIntermediateDirectories: true)
        try #"{"bundle_id": "com.example.system"}"#.write(
            toFile: system + "/pushkit-free/config.json", atomically: true, encoding: .utf8)
        var environment = setup.environment
        environment["APNS_TOPIC"] = nil
        environment["XDG_CONFIG_DIRS"] = system
        let checked = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(checked.stdout.contains(system + "/pushkit-free/config.json"), "\(checked.stdout)")
        #expect(checked.stdout.contains("the system's (XDG_CONFIG_DIRS"), "\(checked.stdout)")
        #expect(checked.stdout.contains("com.example.system"), "\(checked.stdout)")
        // The user's own config, once there, wins.
        try FileManager.default.createDirectory(
            atPath: setup.directory.file("home/.config/pushkit-free"), withIntermediateDirectories: true)
        try #"{"bundle_id": "com.example.user"}"#.write(
            toFile: setup.directory.file("home/.config/pushkit-free/config.json"), atomically: true, encoding: .utf8)
        let mine = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(mine.stdout.contains("com.example.user") && !mine.stdout.contains("com.example.system"))
    }
}
