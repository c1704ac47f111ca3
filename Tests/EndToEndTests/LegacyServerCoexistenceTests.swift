import Foundation
import Testing

/// `send-push` and `register-apns` beside the FastAPI `/register-apns` server they replace, which
/// keeps registering phones into the same file: `tokens = json.loads(path.read_text());
/// tokens[device_token] = apns_token; path.write_text(json.dumps(tokens))`, no lock
/// (Tests/Tools/legacy_fastapi_writer.py does exactly that). No registration it writes, before or
/// after any write of ours, may be ignored or lost, and its own reader must keep seeing a flat map.
@Suite("beside the server it replaces")
struct LegacyServerCoexistenceTests {
    enum StartingFile: String, CaseIterable, CustomTestStringConvertible {
        /// The flat map that server wrote.
        case flatMap
        /// Version 1, as an earlier release of these tools converted the flat map on its first write.
        case versionOne

        var testDescription: String { rawValue }
    }

    static let writer = RepositoryFiles.path("Tests/Tools/legacy_fastapi_writer.py")

    /// Production tokens are 1xx, sandbox tokens 2xx, the one APNs answers 410 for 300.
    static let production = (1...5).map { hexToken(100 + $0) }
    static let sandbox = (1...2).map { hexToken(200 + $0) }
    static let gone = hexToken(300)

    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("sven-apns-tokens.json")
    }

    /// What the other server does when a phone posts to its `/register-apns`.
    func legacyRegister(_ pairs: [(String, String)]) throws {
        let arguments = pairs.map { "\($0.0)=\($0.1)" }
        let result = try BuiltTool.runSystem("python3", [Self.writer, devicesFile, "register"] + arguments)
        #expect(result.status == 0, "legacy writer: \(result.stderr)")
    }

    /// The file as that server's own send loop sees it (`tokens.items()`); fails when an entry is not a token string.
    func legacyView(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String] {
        let result = try BuiltTool.runSystem("python3", [Self.writer, devicesFile, "list"])
        #expect(result.status == 0, "the legacy server's reader: \(result.stderr)", sourceLocation: sourceLocation)
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]) ?? [:]
    }

    /// `register-apns list --json`, by device id.
    func listed(_ env: [String: String]) throws -> [String: [String: Any]] {
        let result = try BuiltTool.run("register-apns", ["list", "--json"], environment: env)
        result.expectSuccess()
        return Dictionary(uniqueKeysWithValues: jsonLines(result.stdout).map { ($0["device_id"] as? String ?? "", $0) })
    }

    /// After every step: both views hold exactly `expected` (device id → token), with `environments` recorded.
    func expectRegistry(
        _ expected: [String: String], environments: [String: String], env: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try legacyView(sourceLocation: sourceLocation) == expected, sourceLocation: sourceLocation)
        let devices = try listed(env)
        #expect(devices.mapValues { $0["token"] as? String ?? "" } == expected, sourceLocation: sourceLocation)
        for (id, environment) in environments {
            #expect(devices[id]?["environment"] as? String == environment, "\(id)", sourceLocation: sourceLocation)
        }
    }

    /// One `send-push` to every device: its report by device, and the tokens that got a 200 in this run.
    func sendRound(
        _ number: Int, env: [String: String], emulators: [RunningEmulator]
    ) throws -> (
        report: [String: [String: Any]], delivered: [String: Int]
    ) {
        let before = emulators.map { $0.records().count }
        let result = try BuiltTool.run("send-push", ["--body", "round \(number)", "--json"], environment: env)
        #expect(result.status == 0 || result.status == 1, "send-push: \(result.stderr)")
        let lines = jsonLines(result.stdout)
        let report = Dictionary(uniqueKeysWithValues: lines.map { ($0["device"] as? String ?? "", $0) })
        var delivered: [String: Int] = [:]
        for (emulator, count) in zip(emulators, before) {
            for record in emulator.records().dropFirst(count) where record["status"] as? Int == 200 {
                delivered[record["device_token"] as? String ?? "", default: 0] += 1
            }
        }
        return (report, delivered)
    }

    @Test(
        "registrations the old server writes are delivered, pruning and environments stick, its reader keeps working",
        arguments: StartingFile.allCases)
    func interleaved(startingFile: StartingFile) throws {
        // 410 with a timestamp after every registration of the test, so the token is pruned.
        let later = Int(Date().timeIntervalSince1970 * 1000) + 3_600_000
        let unregisteredList = try setup.directory.write("unregistered.txt", "\(Self.gone) \(later)\n")
        let productionAPNs = try RunningEmulator(
            ["--quiet", "--unregistered-file", unregisteredList]
                + Self.sandbox.flatMap { ["--wrong-environment", $0] }, environment: setup.environment)
        var sandboxEnvironment = setup.environment
        sandboxEnvironment["HOME"] = setup.directory.file("sandbox-home") // its own CA
        let productionTokensRefused = Self.production.flatMap { ["--wrong-environment", $0] }
        let sandboxAPNs = try RunningEmulator(
            ["--quiet", "--sandbox"] + productionTokensRefused, environment: sandboxEnvironment)
        var env = setup.environment
        env["APNS_STATE_FILE"] = devicesFile
        env["APNS_PRODUCTION_URL"] = productionAPNs.baseURL
        env["APNS_SANDBOX_URL"] = sandboxAPNs.baseURL
        let bundle =
            try String(contentsOfFile: productionAPNs.caPath, encoding: .utf8)
            + String(contentsOfFile: sandboxAPNs.caPath, encoding: .utf8)
        env["APNS_CA_FILE"] = try setup.directory.write("ca-bundle.pem", bundle)
        let emulators = [productionAPNs, sandboxAPNs]
        let (p, s) = (Self.production, Self.sandbox)

        let initial = [("old-phone", p[0]), ("debug-phone", s[0]), ("gone-phone", Self.gone)]
        switch startingFile {
        case .flatMap:
            _ = try setup.directory.write("sven-apns-tokens.json", "{}")
            try legacyRegister(initial)
        case .versionOne:
            // A version 1 file an earlier release made (a new file at this name is a flat map now,
            // `SvenFiles`): kept version 1 until the old server writes into it.
            _ = try setup.directory.write("sven-apns-tokens.json", #"{"version": 1, "devices": {}}"#)
            for (id, token) in initial {
                try BuiltTool.run("register-apns", ["add", id, token], environment: env).expectSuccess()
            }
            let text = try String(contentsOfFile: devicesFile, encoding: .utf8)
            #expect(text.contains("\"version\": 1"), "starts as version 1")
        }

        // 1. A new phone registers with the old server; send-push prunes the 410 and learns sandbox.
        try legacyRegister([("new-phone-1", p[1])])
        var round = try sendRound(1, env: env, emulators: emulators)
        #expect(round.report["gone-phone"]?["pruned"] as? Bool == true)
        #expect(round.report["debug-phone"]?["environment"] as? String == "sandbox")
        #expect(round.delivered == [p[0]: 1, s[0]: 1, p[1]: 1])
        var expected = ["old-phone": p[0], "debug-phone": s[0], "new-phone-1": p[1]]
        try expectRegistry(expected, environments: ["debug-phone": "sandbox", "old-phone": "production"], env: env)

        // 2. More phones on the old server around one registered with register-apns.
        try legacyRegister([("new-phone-2", p[2])])
        try BuiltTool.run("register-apns", ["add", "added-phone", p[3], "--name", "Ada's iPhone"], environment: env)
            .expectSuccess()
        try legacyRegister([("new-phone-3", s[1])])
        round = try sendRound(2, env: env, emulators: emulators)
        #expect(round.delivered == [p[0]: 1, s[0]: 1, p[1]: 1, p[2]: 1, p[3]: 1, s[1]: 1])
        #expect(round.report["debug-phone"]?["attempts"] as? Int == 1, "the learned environment was kept")
        #expect(round.report["new-phone-3"]?["environment"] as? String == "sandbox")
        expected.merge(["new-phone-2": p[2], "added-phone": p[3], "new-phone-3": s[1]]) { _, new in new }
        try expectRegistry(expected, environments: ["debug-phone": "sandbox", "new-phone-3": "sandbox"], env: env)
        #expect(try listed(env)["added-phone"]?["name"] as? String == "Ada's iPhone")

        // 3. The old server gives debug-phone a production token: sandbox, learned for the old token, must not stick.
        try legacyRegister([("debug-phone", p[4])])
        round = try sendRound(3, env: env, emulators: emulators)
        #expect(round.delivered == [p[0]: 1, p[4]: 1, p[1]: 1, p[2]: 1, p[3]: 1, s[1]: 1])
        #expect(round.report["debug-phone"]?["attempts"] as? Int == 1)
        expected["debug-phone"] = p[4]
        try expectRegistry(expected, environments: ["debug-phone": "production", "new-phone-3": "sandbox"], env: env)
    }

    @Test("register-apns serve writes registrations into the flat map the old server also writes")
    func serveBesideTheOldServer() throws {
        var env = setup.environment
        env["APNS_STATE_FILE"] = devicesFile
        _ = try setup.directory.write("sven-apns-tokens.json", "{}")
        let p = Self.production
        try legacyRegister([("old-phone", p[0])])
        let server = try RunningServe(["--no-auth"], environment: env)
        let first = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "served", "apns_token": "\#(p[1])"}"#)
        #expect(first.status == 200)
        try legacyRegister([("new-phone", p[2])])
        let second = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "served-2", "apns_token": "\#(p[3])"}"#)
        #expect(second.status == 200)
        let expected = ["old-phone": p[0], "served": p[1], "new-phone": p[2], "served-2": p[3]]
        try expectRegistry(expected, environments: [:], env: env)
    }
}
