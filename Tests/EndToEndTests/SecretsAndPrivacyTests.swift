import Foundation
import Testing

/// Issue 11, secrets and privacy: every tool (and `register-apns serve`) is run the way that shows
/// most, against the emulator, and everything it printed and every file it wrote is searched for
/// the provider key and the raw provider token. Device tokens appear whole only where asked
/// (`--full`, `list --json`) and in the emulator's own record of what APNs received.
@Suite("secrets and privacy")
struct SecretsAndPrivacyTests {
    @Test("no output or file holds the key or the raw provider token; device tokens are masked; files 0600 in 0700")
    func nothingLeaks() throws {
        let setup = try ProviderSetup()
        let home = try #require(setup.environment["HOME"])
        let stateDirectory = home + "/.local/state/pushkit-free"
        let emulator = try RunningEmulator([], environment: setup.environment)
        let env = emulator.asAPNs(for: setup.environment)
        let device = String(repeating: "7d", count: 30) + "c0ffee01"
        let dead = String(repeating: "7d", count: 30) + "deadbeef"

        // The secrets: the raw provider token (what apns-jwt prints by design) and the key's PEM body.
        let jwt = try setup.token()
        #expect(jwt.split(separator: ".").count == 3)
        let keyLines = try String(contentsOfFile: setup.key.pkcs8Path, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("-----") && $0.count >= 16 }.map(String.init)
        #expect(!keyLines.isEmpty)
        let signature = String(jwt.split(separator: ".")[2])

        var outputs: [(what: String, text: String)] = []
        func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws {
            let result = try BuiltTool.run(tool, arguments, environment: env, stdin: stdin)
            outputs.append(("\(tool) \(arguments.joined(separator: " "))", result.stdout + result.stderr))
        }
        try run("apns-jwt", ["check"])
        try run("apns-jwt", ["decode"], stdin: Data(jwt.utf8))
        try run("register-apns", ["phone", device, "--name", "Ada"])
        try run("register-apns", ["old-phone", dead])
        try run("register-apns", ["list"])
        try BuiltTool.runSystem(
            "curl",
            [
                "-sf", "--http2", "--cacert", emulator.caPath, "-X", "POST",
                emulator.baseURL + "/emulator/unregister/" + dead,
            ]
        ).expectSuccess()
        try run("send-push", ["--title", "t", "--body", "b", "--json"])
        try run("send-push", ["--title", "t", "--body", "b", "--dry-run"])
        try run("send-push", ["--title", "t", "--body", "b", "--token", String(repeating: "0", count: 64), "--json"])
        try run("send-push", ["--hook", "m1"], stdin: Data("a reply".utf8))
        try run("send-push", ["--title", "x", "--key-path", setup.directory.file("missing.p8")])

        let secret = try setup.directory.write("serve.secret", "s3cret-value-for-the-test\n")
        let server = try RunningServe(["--secret-file", secret], environment: env)
        let auth = ["Authorization": "Bearer s3cret-value-for-the-test"]
        try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "tablet", "apns_token": "\#(String(repeating: "7d", count: 30))c0ffee02"}"#,
            headers: auth)
        try server.request("POST", "/api/v1/notifications/send", json: #"{"title": "t"}"#, headers: auth)
        try server.request("GET", "/api/v1/devices", headers: auth)
        try server.request("GET", "/metrics", headers: auth)
        try server.request("POST", "/register-apns", json: "{}", headers: ["X-OpenClaw-Auth": "wrong"])
        // The hook delivers in the background: wait for its log line before reading the files.
        let deadline = Date().addingTimeInterval(20)
        while !((try? String(contentsOfFile: stateDirectory + "/push.log", encoding: .utf8)) ?? "").contains("m1"),
            Date() < deadline
        { usleep(20_000) }
        #expect(server.terminate() == 0)
        outputs.append(("register-apns serve", server.stdout + server.stderr))
        outputs.append(("apns-emulator", emulator.stdout + emulator.stderr))

        // Every file the tools wrote, but the token cache, whose whole point is to hold the token.
        var files: [(what: String, text: String)] = []
        let enumerator = FileManager.default.enumerator(atPath: home)
        while let relative = enumerator?.nextObject() as? String {
            let path = home + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let mode = ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? 0
            if path.hasPrefix(stateDirectory) && !path.hasPrefix(stateDirectory + "/emulator") {
                #expect(mode & 0o077 == 0, "\(relative) is \(String(mode, radix: 8))")
            }
            guard !isDirectory.boolValue, !relative.hasSuffix("provider-tokens.json"), !relative.hasSuffix(".pem")
            else { continue }
            files.append((relative, String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)))
        }
        #expect(
            files.contains { $0.what.hasSuffix("push.log") } && files.contains { $0.what.hasSuffix("devices.json") })
        let tokenCache = try String(contentsOfFile: stateDirectory + "/provider-tokens.json", encoding: .utf8)
        #expect(tokenCache.contains(signature), "the cache does hold the token (so the search below could find one)")

        for (what, text) in outputs + files {
            #expect(!text.contains(signature), "the raw provider token's signature is in \(what)")
            #expect(!text.contains("s3cret-value"), "the serve secret is in \(what)")
            for line in keyLines { #expect(!text.contains(line), "key material is in \(what)") }
        }
        // Device tokens: whole only in the registry itself and in the emulator's record of requests.
        for (what, text) in outputs + files where !what.hasSuffix("devices.json") && what != "apns-emulator" {
            #expect(!text.contains(device) && !text.contains(dead), "a whole device token is in \(what)")
        }
        // A key others can read draws a warning from the doctor, and from every tool that loads it.
        chmod(setup.key.pkcs8Path, 0o644)
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(check.stdout.contains("let other users read the key; run chmod 600"), "\(check.stdout)")
        for (tool, arguments) in [("apns-jwt", []), ("send-push", ["--title", "t", "--token", device])] {
            let result = try BuiltTool.run(tool, arguments, environment: env)
            #expect(
                result.status == 0
                    && result.stderr.contains("warning: the key file \(setup.key.pkcs8Path) has permissions 644"),
                "\(tool): \(result.stderr)")
        }
        let readableServer = try RunningServe(["--no-auth"], environment: env)
        #expect(readableServer.stderr.contains("has permissions 644, which let other users read the key"))
        chmod(setup.key.pkcs8Path, 0o600)
        // The failed key load names the file, not its contents, and the wrong secret is not echoed.
        #expect(outputs.contains { $0.text.contains("missing.p8") })
        #expect(!outputs.contains { $0.text.contains("wrong") && $0.what == "register-apns serve" })
    }
}
