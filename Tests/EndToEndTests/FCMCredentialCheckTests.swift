import Foundation
import Testing

/// `apns-jwt check` with FCM settings, against the emulator playing FCM: the service account file
/// checked offline (fields, permissions), and `--online` getting an access token from the
/// emulator's token endpoint and a `validate_only` message accepted, or the account refused. The
/// access token, the assertion and the key never show.
@Suite("apns-jwt check: FCM")
struct FCMCredentialCheckTests {
    /// The emulator's service account file, the emulator as APNs and FCM, its CA trusted.
    struct Setup {
        let provider: ProviderSetup
        let emulator: RunningEmulator
        let account: String
        let environment: [String: String]

        init() throws {
            provider = try ProviderSetup()
            emulator = try RunningEmulator(["--quiet"], environment: provider.environment)
            account = EmulatorFCMTests.accountPath(emulator)
            var environment = emulator.asAPNs(for: provider.environment)
            environment["FCM_URL"] = emulator.baseURL
            environment["FCM_SERVICE_ACCOUNT"] = account
            self.environment = environment
        }

        /// The emulator's service account with `changes` (`nil` removes a member), written as `name`.
        func account(_ name: String, mode: Int = 0o600, _ changes: [String: String?]) throws -> String {
            var members = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: account)))
                    as? [String: Any])
            for (key, value) in changes { members[key] = value }
            let text = String(decoding: try JSONSerialization.data(withJSONObject: members), as: UTF8.self)
            return try provider.directory.write(name, text, mode: mode)
        }

        /// Runs `apns-jwt check` with `arguments`, the service account at `account` (the emulator's
        /// by default).
        func check(_ arguments: [String] = [], account: String? = nil) throws -> ToolResult {
            var environment = self.environment
            if let account { environment["FCM_SERVICE_ACCOUNT"] = account }
            let result = try BuiltTool.run("apns-jwt", ["check"] + arguments, environment: environment)
            try expectNoSecrets(result, keyOf: account ?? self.account)
            return result
        }

        /// Neither stream shows an access token, an assertion (a JWT) or any line of the key.
        func expectNoSecrets(_ result: ToolResult, keyOf path: String) throws {
            let output = result.stdout + result.stderr
            #expect(!output.contains("ya29."), "no access token: \(output)")
            #expect(!output.contains("eyJ"), "no assertion: \(output)")
            #expect(!output.contains("PRIVATE KEY"), "\(output)")
            let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            let key = (file as? [String: Any])?["private_key"] as? String ?? ""
            for line in key.split(separator: "\n") where !line.hasPrefix("-----") {
                #expect(!output.contains(line), "no line of the key")
            }
        }
    }

    @Test("offline: the emulator's account, token_uri and fcm_url pass; without FCM settings no FCM line")
    func offline() throws {
        let setup = try Setup()
        let checked = try setup.check()
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    fcm account"), "\(checked.stdout)")
        #expect(checked.stdout.contains("project pushkit-emulator"), "\(checked.stdout)")
        #expect(checked.stdout.contains("RSA 2048-bit key"), "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    fcm token uri  \(setup.emulator.baseURL)/token"), "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    fcm url"), "\(checked.stdout)")
        #expect(checked.stdout.contains("trusted for FCM and its token endpoint too"), "\(checked.stdout)")
        #expect(checked.stdout.hasSuffix("all good\n"), "\(checked.stdout)")

        var apnsOnly = setup.environment
        apnsOnly["FCM_URL"] = nil
        apnsOnly["FCM_SERVICE_ACCOUNT"] = nil
        let plain = try BuiltTool.run("apns-jwt", ["check"], environment: apnsOnly)
        #expect(plain.status == 0)
        #expect(!plain.stdout.lowercased().contains("fcm"), "\(plain.stdout)")
    }

    @Test("offline: a service account without client_email is an error naming the field, exit 78")
    func missingField() throws {
        let setup = try Setup()
        let path = try setup.account("no-email.json", ["client_email": nil])
        let checked = try setup.check(account: path)
        #expect(checked.status == 78, "\(checked.stdout)")
        #expect(checked.stdout.contains("FAIL  fcm account"), "\(checked.stdout)")
        #expect(checked.stdout.contains(#"has no "client_email""#), "\(checked.stdout)")
        #expect(checked.stdout.hasSuffix("1 problem to fix\n"), "\(checked.stdout)")

        let online = try setup.check(["--online"], account: path)
        #expect(online.status == 78)
        #expect(online.stdout.contains("ok    apns (online)"), "APNs is still probed: \(online.stdout)")
        #expect(online.stdout.contains("FAIL  fcm (online)") && online.stdout.contains("not asked"))
    }

    @Test("--online without an APNs key: FCM is still probed, APNs is not; exit 78 for the APNs settings")
    func withoutAPNs() throws {
        let setup = try Setup()
        var environment = setup.environment
        for name in ["APNS_KEY_PATH", "APNS_KEY_ID", "APNS_TEAM_ID"] { environment[name] = nil }
        let checked = try BuiltTool.run("apns-jwt", ["check", "--online"], environment: environment)
        try setup.expectNoSecrets(checked, keyOf: setup.account)
        #expect(checked.status == 78, "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    fcm (online)"), "\(checked.stdout)")
        #expect(checked.stdout.contains("FAIL  apns (online)"), "\(checked.stdout)")
    }

    @Test("offline: a service account other users can read is a warning with the chmod, exit 0")
    func worldReadable() throws {
        let setup = try Setup()
        let path = try setup.account("open.json", mode: 0o644, [:])
        let checked = try setup.check(account: path)
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(checked.stdout.contains("warn  fcm account"), "\(checked.stdout)")
        #expect(checked.stdout.contains("permissions 644") && checked.stdout.contains("chmod 600 \(path)"))
        #expect(checked.stdout.hasSuffix("all good (1 warning)\n"), "\(checked.stdout)")
    }

    @Test("--online: a fresh access token and a validate_only message to a topic are accepted; nothing is cached")
    func online() throws {
        let setup = try Setup()
        let checked = try setup.check(["--online"])
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    fcm (online)"), "\(checked.stdout)")
        #expect(checked.stdout.contains("nothing was delivered"), "\(checked.stdout)")
        let fcm = setup.emulator.waitForRecords(3).filter { $0["provider"] as? String == "fcm" }
        #expect(fcm.map { $0["kind"] as? String } == ["token", "send"], "\(fcm)")
        #expect(fcm.last?["topic"] as? String == "pushkit-free-check")
        #expect(fcm.last?["validate_only"] as? Bool == true)
        #expect(fcm.last?["status"] as? Int == 200)
        let home = setup.provider.environment["HOME"] ?? ""
        let files = FileManager.default.enumerator(atPath: home)?.allObjects as? [String] ?? []
        #expect(!files.contains { $0.hasSuffix("fcm-access-token.json") }, "no access token is cached: \(files)")

        let json = try setup.check(["--online", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let findings = report["findings"] as? [[String: Any]] ?? []
        let probe = try #require(findings.first { $0["setting"] as? String == "fcm (online)" })
        #expect(probe["severity"] as? String == "ok" && report["ok"] as? Bool == true)
    }

    @Test("--online: an account whose key the token endpoint does not know is refused with the fix, exit 78")
    func unknownKey() throws {
        let setup = try Setup()
        let keyPath = setup.provider.directory.file("other-rsa.pem")
        try BuiltTool.runSystem("openssl", ["genrsa", "-out", keyPath, "2048"]).expectSuccess()
        let key = try String(contentsOfFile: keyPath, encoding: .utf8)
        let path = try setup.account("other-key.json", ["private_key": key])
        #expect(try setup.check(account: path).status == 0, "offline, nothing can tell")

        let checked = try setup.check(["--online"], account: path)
        #expect(checked.status == 78, "\(checked.stdout)")
        #expect(checked.stdout.contains("FAIL  fcm (online)"), "\(checked.stdout)")
        #expect(checked.stdout.contains("invalid_grant (Invalid JWT Signature.)"), "\(checked.stdout)")
        #expect(checked.stdout.contains("clock right") && checked.stdout.contains("key still enabled"))
        let fcm = setup.emulator.waitForRecords(1).filter { $0["provider"] as? String == "fcm" }
        #expect(fcm.map { $0["kind"] as? String } == ["token"], "no message without a token: \(fcm)")
    }

    @Test("--online: an account of another project is refused by FCM, the project named, exit 78")
    func otherProject() throws {
        let setup = try Setup()
        let path = try setup.account("other-project.json", ["project_id": "someone-else-1"])
        let checked = try setup.check(["--online"], account: path)
        #expect(checked.status == 78, "\(checked.stdout)")
        #expect(checked.stdout.contains("FAIL  fcm (online)"), "\(checked.stdout)")
        #expect(checked.stdout.contains("403 PERMISSION_DENIED"), "\(checked.stdout)")
        #expect(checked.stdout.contains("for project someone-else-1"), "\(checked.stdout)")
    }
}
