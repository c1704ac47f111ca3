import Foundation
import Testing

/// Token reuse across processes and every error path of `apns-jwt`, through the built binary.
@Suite("apns-jwt caching and errors")
struct APNsJWTCacheAndErrorsTests {
    let directory: TemporaryDirectory
    let key: OpenSSLKey
    let environment: [String: String]

    init() throws {
        (directory, key, environment) = try ProviderSetup().withoutTopic()
    }

    @Test("two runs print the same token; --refresh prints a new one that later runs reuse")
    func reuseAndRefresh() throws {
        let first = try BuiltTool.run("apns-jwt", [], environment: environment)
        let second = try BuiltTool.run("apns-jwt", [], environment: environment)
        first.expectSuccess()
        #expect(first.stdout == second.stdout)
        let cache = directory.file("home/.local/state/pushkit-free/provider-tokens.json")
        #expect(FileManager.default.fileExists(atPath: cache))
        #expect(try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int == 0o600)

        let refreshed = try BuiltTool.run("apns-jwt", ["--refresh"], environment: environment)
        refreshed.expectSuccess()
        // iat has one-second resolution; the signature (ECDSA is randomized) differs regardless.
        #expect(refreshed.stdout != first.stdout)
        #expect(try BuiltTool.run("apns-jwt", [], environment: environment).stdout == refreshed.stdout)
    }

    @Test("8 processes started together with an empty cache all print the same token")
    func concurrentProcessesShareOneToken() async throws {
        let env = environment
        let outputs = try await withThrowingTaskGroup(of: ToolResult.self) { group in
            for _ in 0..<8 {
                group.addTask { try BuiltTool.run("apns-jwt", [], environment: env) }
            }
            return try await group.reduce(into: [ToolResult]()) { $0.append($1) }
        }
        for output in outputs { output.expectSuccess() }
        #expect(Set(outputs.map(\.stdout)).count == 1)
        #expect(outputs.first?.stdout.isEmpty == false)
    }

    @Test("the legacy config file works unchanged, and flags override it")
    func legacyConfigFile() throws {
        let config = try directory.write(
            "config.json",
            """
            {"team_id": "TEAM678901", "key_id": "ABCDE12345", "bundle_id": "com.yourcompany.Sven", "key_path": "\(key.pkcs8Path)", "use_sandbox": false}
            """)
        let env = ["HOME": directory.file("home"), "PUSHKIT_CONFIG": config]
        let result = try BuiltTool.run("apns-jwt", [], environment: env)
        result.expectSuccess()
        #expect(result.stderr.isEmpty)
        let claims = try jsonObject(base64URL: String(result.stdout.split(separator: ".")[1]))
        #expect(claims["iss"] as? String == "TEAM678901")

        let overridden = try BuiltTool.run("apns-jwt", ["--team-id", "OTHER12345", "--refresh"], environment: env)
        overridden.expectSuccess()
        let overriddenClaims = try jsonObject(base64URL: String(overridden.stdout.split(separator: ".")[1]))
        #expect(overriddenClaims["iss"] as? String == "OTHER12345")
    }

    @Test("unknown config keys are a warning on stderr, never a failure")
    func unknownConfigKey() throws {
        let config = try directory.write("config.json", #"{"team_id": "TEAM678901", "favourite_colour": "blue"}"#)
        var env = environment
        env["PUSHKIT_CONFIG"] = config
        let result = try BuiltTool.run("apns-jwt", [], environment: env)
        result.expectSuccess()
        #expect(result.stderr == "apns-jwt: warning: ignoring unknown key \"favourite_colour\" in \(config)\n")
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        let environment: [String: String]
        let status: Int32
        let message: String
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            name: "missing key file", arguments: ["--key-path", "/nonexistent/AuthKey.p8"], environment: [:],
            status: 66,
            message: "apns-jwt: key file /nonexistent/AuthKey.p8 (from --key-path) does not exist\n"),
        ErrorCase(
            name: "missing key file named by the environment", arguments: [],
            environment: ["APNS_KEY_PATH": "/nonexistent/k.p8"], status: 66,
            message: "apns-jwt: key file /nonexistent/k.p8 (from APNS_KEY_PATH) does not exist\n"),
        ErrorCase(
            name: "no key configured", arguments: [], environment: ["APNS_KEY_PATH": ""], status: 78,
            message: "apns-jwt: no provider key: set --key-path, APNS_KEY_PATH or key_path in "),
        ErrorCase(
            name: "key id too short", arguments: ["--key-id", "ABC"], environment: [:], status: 78,
            message: "apns-jwt: key id \"ABC\" has 3 characters; Apple's key ids have 10 (from --key-id)\n"),
        ErrorCase(
            name: "team id with a bad character", arguments: [], environment: ["APNS_TEAM_ID": "TEAM-78901"],
            status: 78,
            message:
                "apns-jwt: team id \"TEAM-78901\" contains \"-\"; Apple's team ids are letters and digits (from APNS_TEAM_ID)\n"
        ),
        ErrorCase(
            name: "no team id", arguments: [], environment: ["APNS_TEAM_ID": ""], status: 78,
            message: "apns-jwt: no team id: set --team-id, APNS_TEAM_ID or team_id in the config file\n"),
        ErrorCase(
            name: "bad environment variable", arguments: [], environment: ["APNS_ENVIRONMENT": "staging"], status: 78,
            message: "apns-jwt: APNS_ENVIRONMENT must be production or sandbox, not \"staging\"\n"),
        ErrorCase(
            name: "missing config file", arguments: ["--config", "/nonexistent/c.json"], environment: [:], status: 66,
            message: "apns-jwt: config file /nonexistent/c.json (from --config) does not exist\n"),
        ErrorCase(
            name: "conflicting flags", arguments: ["check", "--sandbox", "--production"], environment: [:], status: 64,
            message: "Error: --sandbox and --production cannot be used together"),
        ErrorCase(
            name: "bad --environment", arguments: ["check", "--environment", "staging"], environment: [:], status: 64,
            message:
                "Error: The value 'staging' is invalid for '--environment <env>'. Please provide one of 'production' and 'sandbox'."
        ),
        ErrorCase(
            name: "unknown flag", arguments: ["--frobnicate"], environment: [:], status: 64,
            message: "Error: Unknown option '--frobnicate'"),
    ]

    @Test("each error names what is at fault and exits with its sysexits code", arguments: errorCases)
    func errors(errorCase: ErrorCase) throws {
        var env = environment
        env.merge(errorCase.environment) { _, new in new }
        let result = try BuiltTool.run("apns-jwt", errorCase.arguments, environment: env)
        #expect(result.status == errorCase.status)
        #expect(result.stderr.hasPrefix(errorCase.message), "stderr was: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a key file that is not a P-256 private key: exit 78 naming the file")
    func notAP256Key() throws {
        let p384 = directory.file("p384.pem")
        try BuiltTool.runSystem("openssl", ["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", p384])
            .expectSuccess()
        let garbage = try directory.write("garbage.p8", "this is not a key\n")
        for (path, expected) in [
            (p384, "another curve; APNs needs a P-256"), (garbage, "is not a PEM key file"),
            (key.publicKeyPath, "holds a public key"),
        ] {
            let result = try BuiltTool.run("apns-jwt", ["--key-path", path], environment: environment)
            #expect(result.status == 78)
            #expect(result.stderr.contains("key file \(path) (from --key-path)"))
            #expect(result.stderr.contains(expected), "stderr was: \(result.stderr)")
        }
    }

    @Test("an unreadable key file: exit 66")
    func unreadableKey() throws {
        guard getuid() != 0 else { return try unreadableAsRoot() }
        chmod(key.pkcs8Path, 0)
        let result = try BuiltTool.run("apns-jwt", [], environment: environment)
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot read key file"))
    }

    /// Root reads any file, so make the path a directory instead: still unreadable as a key.
    private func unreadableAsRoot() throws {
        let dirAsKey = directory.file("a-directory.p8")
        try FileManager.default.createDirectory(atPath: dirAsKey, withIntermediateDirectories: true)
        let result = try BuiltTool.run("apns-jwt", ["--key-path", dirAsKey], environment: environment)
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot read key file \(dirAsKey)"), "stderr was: \(result.stderr)")
    }

    @Test("decode prints header, claims and age as JSON; bad tokens exit 65")
    func decode() throws {
        let token = try BuiltTool.run("apns-jwt", [], environment: environment).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let decoded = try BuiltTool.run("apns-jwt", ["decode", token], environment: environment)
        decoded.expectSuccess()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: Any])
        #expect((object["header"] as? [String: String]) == ["alg": "ES256", "kid": "ABCDE12345"])
        #expect((object["claims"] as? [String: Any])?["iss"] as? String == "TEAM678901")
        let age = try #require(object["age_seconds"] as? Int)
        #expect(age >= 0 && age < 60)
        #expect(!decoded.stdout.contains(token.split(separator: ".")[2]), "the signature is not echoed")

        let fromStdin = try BuiltTool.run(
            "apns-jwt", ["decode"], environment: environment, stdin: Data((token + "\n").utf8))
        fromStdin.expectSuccess()
        #expect(fromStdin.stdout.contains("\"iss\" : \"TEAM678901\""))

        let bad = try BuiltTool.run("apns-jwt", ["decode", "not-a-token"], environment: environment)
        #expect(bad.status == 65)
        #expect(bad.stderr == "apns-jwt: a provider token has 3 dot-separated parts, this one has 1\n")
        let empty = try BuiltTool.run("apns-jwt", ["decode"], environment: environment, stdin: Data())
        #expect(empty.status == 65)
        #expect(empty.stderr.contains("no token given"))
    }

    @Test("check: exit 0 with every setting and its source when all is well")
    func checkHealthy() throws {
        var env = environment
        env["APNS_TOPIC"] = "com.example.app"
        let result = try BuiltTool.run("apns-jwt", ["check", "--key-id", "ABCDE12345"], environment: env)
        result.expectSuccess()
        for expected in [
            "key file", "[env]", "key id        ABCDE12345", "[flag]", "topic         com.example.app",
            "environment   production", "[default]", "all good",
        ] {
            #expect(result.stdout.contains(expected), "missing \(expected) in:\n\(result.stdout)")
        }
    }

    @Test("check: exit 78 and a reason a user can act on for each problem")
    func checkProblems() throws {
        let result = try BuiltTool.run(
            "apns-jwt", ["check", "--key-path", "/nonexistent/k.p8", "--key-id", "SHORT"],
            environment: ["HOME": directory.file("home"), "APNS_TEAM_ID": "TOOLONGTEAMID"])
        #expect(result.status == 78)
        for expected in [
            "key file /nonexistent/k.p8 (from --key-path) does not exist",
            "key id \"SHORT\" has 5 characters",
            "team id \"TOOLONGTEAMID\" has 13 characters",
            "no topic: set --topic, APNS_TOPIC or bundle_id",
            "4 problems to fix",
        ] {
            #expect(result.stdout.contains(expected), "missing \(expected) in:\n\(result.stdout)")
        }
    }

    @Test("send-push and apns-jwt name every missing setting in one run, and point to apns-jwt check")
    func missingSettingsAtOnce() throws {
        let bare = ["HOME": directory.file("home"), "APNS_KEY_PATH": key.pkcs8Path]
        let send = try BuiltTool.run(
            "send-push", ["--token", String(repeating: "ab", count: 32), "--body", "x"], environment: bare)
        #expect(send.status == 78, "\(send.stderr)")
        for expected in [
            "3 settings are missing", "the topic (--topic", "the key id (--key-id", "the team id (--team-id",
            "apns-jwt check",
        ] {
            #expect(send.stderr.contains(expected), "missing \(expected) in: \(send.stderr)")
        }
        #expect(!send.stderr.contains("the provider key"), "the key is set: \(send.stderr)")
        let token = try BuiltTool.run("apns-jwt", [], environment: bare)
        #expect(token.status == 78 && token.stderr.contains("2 settings are missing"), "\(token.stderr)")
        #expect(!token.stderr.contains("topic"), "a provider token needs no topic: \(token.stderr)")
        // One missing: its own message, as before.
        var one = bare
        one["APNS_KEY_ID"] = "ABCDE12345"
        let single = try BuiltTool.run("apns-jwt", [], environment: one)
        #expect(single.status == 78 && single.stderr.contains("no team id: set --team-id"), "\(single.stderr)")
    }

    @Test("check: a key readable by others is a warning, not a failure")
    func checkPermissions() throws {
        chmod(key.pkcs8Path, 0o644)
        var env = environment
        env["APNS_TOPIC"] = "com.example.app"
        let result = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        result.expectSuccess()
        #expect(result.stdout.contains("permissions 644 let other users read the key; run chmod 600"))
        #expect(result.stdout.contains("all good (1 warning)"))
    }
}
