import Foundation
import Testing

/// Text that becomes an APNs request header (the topic, a collapse id) never carries a line
/// break: libcurl would end the header there and send what follows as a header of its own, so a
/// hook passing untrusted text to `--collapse-id` could set `apns-priority` or `apns-push-type`.
@Suite("header injection: control characters in header values are refused, nothing is sent")
struct HeaderInjectionTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    @Test("send-push --collapse-id with CR/LF: exit 65, the message names the option, APNs gets nothing")
    func collapseID() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        let injected = "update-1\r\napns-priority: 5\r\napns-push-type: background"
        let result = try BuiltTool.run("send-push", ["--body", "hi", "--collapse-id", injected], environment: env)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("--collapse-id must not contain control characters"), "\(result.stderr)")
        #expect(!result.stderr.contains("\r"), "the refused value is not echoed raw")
        #expect(emulator.records().isEmpty, "nothing reached APNs")
        // The same text without the line breaks is an ordinary collapse id.
        try BuiltTool.run("send-push", ["--body", "hi", "--collapse-id", "update-1"], environment: env).expectSuccess()
        #expect(emulator.waitForRecords(1).first?["collapse_id"] as? String == "update-1")
    }

    @Test("send-push --collapse-id with NEL, U+2028 or U+2029: exit 65 like CR/LF, APNs gets nothing")
    func unicodeLineBreaks() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        for separator in ["\u{85}", "\u{2028}", "\u{2029}"] {
            let result = try BuiltTool.run(
                "send-push", ["--body", "hi", "--collapse-id", "update-1\(separator)apns-priority: 5"], environment: env
            )
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("--collapse-id must not contain control characters"), "\(result.stderr)")
        }
        #expect(emulator.records().isEmpty, "nothing reached APNs")
    }

    @Test(
        "a topic with CR/LF from --topic, APNS_TOPIC or the config file: exit 78 everywhere, and check calls it an error"
    )
    func topic() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        let injected = ProviderSetup.topic + "\r\napns-push-type: voip"

        let flag = try BuiltTool.run("send-push", ["--body", "hi", "--topic", injected], environment: env)
        #expect(flag.status == 78, "\(flag.stderr)")
        #expect(flag.stderr.contains("--topic must not contain control characters"), "\(flag.stderr)")

        var variable = env
        variable["APNS_TOPIC"] = injected
        let fromEnvironment = try BuiltTool.run("send-push", ["--body", "hi"], environment: variable)
        #expect(fromEnvironment.status == 78, "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stderr.contains("APNS_TOPIC"), "\(fromEnvironment.stderr)")

        let config = try setup.directory.write(
            "config.json", #"{"bundle_id": "com.example.app\r\napns-priority: 5"}"#)
        var fromFile = env
        fromFile["APNS_TOPIC"] = nil
        fromFile["PUSHKIT_CONFIG"] = config
        let viaFile = try BuiltTool.run("send-push", ["--body", "hi"], environment: fromFile)
        #expect(viaFile.status == 78, "\(viaFile.stderr)")
        #expect(viaFile.stderr.contains("bundle_id"), "\(viaFile.stderr)")

        let check = try BuiltTool.run("apns-jwt", ["check"], environment: variable)
        #expect(check.status == 78, "check says it is wrong: \(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("must not contain control characters"), "\(check.stdout)")
        #expect(!check.stdout.contains("\r"), "check shows nothing raw")
        #expect(emulator.records().isEmpty, "nothing reached APNs")
    }
}
