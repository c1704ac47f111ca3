import Foundation
import Testing

/// `"profile"` in the config file: an app's notification conventions declared once, applied by
/// `send-push` to every alert wherever its flags leave a field unset.
@Suite("payload profiles: an app's conventions, set once in the config file")
struct PayloadProfileEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    /// `send-push ARGUMENTS` with a config file holding `profile`; the payload and record APNs got.
    func send(profile: String, _ arguments: [String]) throws -> (record: [String: Any], payload: [String: Any]) {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"profile": \#(profile)}"#)
        try register("phone", hexToken(1), env: env)
        try BuiltTool.run("send-push", arguments, environment: env).expectSuccess()
        let record = try #require(emulator.waitForRecords(1).first)
        return (record, try #require(record["payload"] as? [String: Any]))
    }

    @Test("\"openclaw\": the OpenClaw service's category, thread, sound, mutable-content, expiration and data envelope")
    func openClaw() throws {
        let (record, payload) = try send(
            profile: #""openclaw""#,
            ["--title", "Task Complete", "--body", "Done", "--data", #"{"type": "show_message", "context": "task-1"}"#])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["category"] as? String == "OPENCLAW_MESSAGE" && aps["thread-id"] as? String == "openclaw")
        #expect(aps["mutable-content"] as? Int == 1 && aps["sound"] as? String == "default")
        #expect(payload["openclaw"] as? NSDictionary == ["type": "show_message", "context": "task-1"])
        #expect(payload["type"] == nil, "the data is under openclaw, not beside aps")
        #expect(record["expiration"] as? Int == 0)
    }

    @Test("flags win over the profile: --category and --thread-id keep theirs")
    func flagsWin() throws {
        let (_, payload) = try send(
            profile: #""openclaw""#,
            ["--title", "Good Morning", "--body", "b", "--category", "OPENCLAW_BRIEFING", "--thread-id", "morning"])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["category"] as? String == "OPENCLAW_BRIEFING" && aps["thread-id"] as? String == "morning")
    }

    @Test("\"ember-briefing\": category BRIEFING and destination briefing, which the Ember app routes a tap on")
    func emberBriefing() throws {
        let (_, payload) = try send(profile: #""ember-briefing""#, ["--title", "Morning briefing", "--body", "b"])
        #expect((payload["aps"] as? [String: Any])?["category"] as? String == "BRIEFING")
        #expect(payload["destination"] as? String == "briefing")
    }

    @Test("a profile declared as an object, extending a built-in one")
    func declared() throws {
        let (record, payload) = try send(
            profile: #"{"extends": "openclaw", "category": "MY_APP", "expiration": null, "data_key": "app"}"#,
            ["--body", "b", "--data", #"{"k": 1}"#])
        #expect((payload["aps"] as? [String: Any])?["category"] as? String == "MY_APP")
        #expect(payload["app"] as? NSDictionary == ["k": 1])
        #expect(record["expiration"] == nil || record["expiration"] is NSNull)
    }

    @Test("--profile names a built-in profile in place of the config's; none turns it off; another name is 64")
    func profileFlag() throws {
        let (_, payload) = try send(profile: #""openclaw""#, ["--body", "b", "--profile", "ember-briefing"])
        #expect((payload["aps"] as? [String: Any])?["category"] as? String == "BRIEFING")
        #expect((payload["aps"] as? [String: Any])?["thread-id"] == nil, "the config's openclaw profile is not applied")
        var env = clientEnvironment(nil)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"profile": "openclaw"}"#)
        let bad = try BuiltTool.run(
            "send-push", ["--body", "b", "--token", hexToken(1), "--profile", "nope"], environment: env)
        #expect(bad.status == 64 && bad.stderr.contains("--profile must be none or one of"), "\(bad.stderr)")
        let off = try BuiltTool.run(
            "send-push", ["--body", "b", "--token", hexToken(1), "--profile", "none", "--dry-run"], environment: env)
        #expect(off.status == 0 && !off.stdout.contains("OPENCLAW_MESSAGE"), "\(off.stdout)\(off.stderr)")
    }

    @Test("a profile that is not one: exit 78 naming it, and check says so")
    func invalid() throws {
        var env = clientEnvironment(nil)
        for (profile, message) in [
            (#""nope""#, "the built-in profiles are ember-briefing, openclaw, openclaw-gateway"),
            (#"{"categry": "X"}"#, "has \"categry\""), (#"{"mutable_content": "yes"}"#, "must be true or false"),
        ] {
            env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"profile": \#(profile)}"#)
            let run = try BuiltTool.run("send-push", ["--body", "b", "--token", hexToken(1)], environment: env)
            #expect(run.status == 78 && run.stderr.contains(message), "\(profile): \(run.stderr)")
            let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
            #expect(check.status == 78 && check.stdout.contains(message), "\(profile): \(check.stdout)")
        }
    }
}
