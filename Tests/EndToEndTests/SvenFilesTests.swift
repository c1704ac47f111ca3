import Foundation
import Testing

/// The Sven design's files, shared with its old scripts (`SvenFiles`): its config names no token
/// map, and its old `send-push` script iterates the token map as `{device_token: apns_token}`.
@Suite("the Sven design's files: its config finds its token map, which stays a flat map")
struct SvenFilesTests: ClientToolSuite {
    let setup: ProviderSetup
    let stateDirectory: String
    let config: String

    init() throws {
        setup = try ProviderSetup()
        stateDirectory = setup.directory.file("home/dispatch/state")
        config = stateDirectory + "/sven-push-config.json"
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    var tokenMap: String { stateDirectory + "/sven-apns-tokens.json" }
    var clientSettings: [String: String] { [:] }

    /// The design's config file, as its set-up section writes it (no `state_file`), named by
    /// PUSHKIT_CONFIG; the key settings come from the provider setup.
    func svenEnvironment(_ emulator: RunningEmulator?, config path: String? = nil) throws -> [String: String] {
        let text = """
            {"team_id": "\(ProviderSetup.teamID)", "key_id": "\(ProviderSetup.keyID)", \
            "bundle_id": "\(ProviderSetup.topic)", "key_path": "\(setup.key.pkcs8Path)", "use_sandbox": false}
            """
        let file = path ?? config
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        var env = clientEnvironment(emulator)
        for name in ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_KEY_PATH", "APNS_TOPIC"] { env[name] = nil }
        env["PUSHKIT_CONFIG"] = file
        return env
    }

    /// The token map as the old script reads it (`json.loads(...).items()`): every value a token.
    func asTheOldScriptReadsIt() throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tokenMap)))
        let map = try #require(object as? [String: Any], "a JSON object")
        return try map.mapValues { try #require($0 as? String, "\($0) is not a token string") }
    }

    @Test(
        "the design's config alone: register-apns creates sven-apns-tokens.json beside it, as a flat map; the legacy call delivers"
    )
    func configBesideTokenMap() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = try svenEnvironment(emulator)
        try register("phone-uuid-1", hexToken(1), ["--name", "Ada's iPhone"], env: env)
        #expect(try asTheOldScriptReadsIt() == ["phone-uuid-1": hexToken(1)])
        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: env)
        #expect(listed.stdout.contains("Ada's iPhone"), "details kept in the sidecar: \(listed.stdout)")

        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(check.stdout.contains("the Sven token map beside \(config)"), "\(check.stdout)")

        let sent = try BuiltTool.run("send-push", ["msg-1", "Your reply is ready"], environment: env)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(emulator.waitForRecords(1).first?["device_token"] as? String == hexToken(1))
    }

    @Test("the design's config copied elsewhere: the legacy call finds no device, and push.log and check say why")
    func noDeviceIsVisible() throws {
        try "{\"phone-uuid-1\": \"\(hexToken(1))\"}".write(toFile: tokenMap, atomically: true, encoding: .utf8)
        let elsewhere = setup.directory.file("home/.config/pushkit-free")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let env = try svenEnvironment(nil, config: elsewhere + "/config.json")

        let sent = try BuiltTool.run("send-push", ["msg-2", "Your reply is ready"], environment: env)
        #expect(sent.status == 0, "a hook's call never breaks its caller: \(sent.stderr)")
        let log = try String(
            contentsOfFile: setup.directory.file("home/.local/state/pushkit-free/push.log"), encoding: .utf8)
        #expect(log.contains("\"outcome\":\"no_devices\"") && log.contains("msg-2"), "\(log)")

        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(check.stdout.contains("the Sven server keeps its phones in \(tokenMap)"), "\(check.stdout)")
    }
}
