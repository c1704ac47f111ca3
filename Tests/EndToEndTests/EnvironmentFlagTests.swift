import Foundation
import Testing

/// `send-push --sandbox` (or `--production`, `--environment`) and devices with another environment
/// recorded: the recorded one wins (a token belongs to one environment), and send-push says so on
/// standard error, naming the devices; devices with none recorded take the flag's.
@Suite("an environment flag beside recorded environments")
struct EnvironmentFlagTests {
    @Test("--sandbox: the device recorded as production is sent to production, and the note names it")
    func recordedEnvironmentWins() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        let phone = String(repeating: "a1", count: 32), ipad = String(repeating: "b2", count: 32)
        try BuiltTool.run("register-apns", ["phone", phone, "--production"], environment: environment).expectSuccess()
        try BuiltTool.run("register-apns", ["ipad", ipad], environment: environment).expectSuccess()

        let sent = try BuiltTool.run("send-push", ["--sandbox", "--body", "hi"], environment: environment)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(
            sent.stderr.contains("--sandbox (sandbox) applies to devices with no recorded environment")
                && sent.stderr.contains("1 device has production recorded and is sent there: phone"),
            "\(sent.stderr)")
        #expect(sent.stdout.contains("(environment: sandbox)"), "ipad learned the flag's: \(sent.stdout)")
        // Where each request goes, with the two environments at two different hosts.
        var apart = environment
        apart["APNS_PRODUCTION_URL"] = "https://production.invalid"
        apart["APNS_SANDBOX_URL"] = "https://sandbox.invalid"
        let planned = try BuiltTool.run("send-push", ["--sandbox", "--body", "hi", "--dry-run"], environment: apart)
        #expect(
            planned.stdout.contains(
                "POST https://production.invalid/3/device/a1a1a1a1…a1a1  (device phone, production)"))
        #expect(planned.stdout.contains("POST https://sandbox.invalid/3/device/b2b2b2b2…b2b2  (device ipad, sandbox)"))
        #expect(planned.stderr.contains("sent there: phone"), "the dry run says it too: \(planned.stderr)")

        // --production beside a device recorded as sandbox: the same note, with the other way to
        // register (a production build's token, --production).
        let production = try BuiltTool.run("send-push", ["--production", "--body", "hi"], environment: environment)
        #expect(production.status == 0, "\(production.stderr)")
        #expect(
            production.stderr.contains("1 device has sandbox recorded and is sent there: ipad")
                && production.stderr.contains("build's token registers anew with register-apns --production)"),
            "\(production.stderr)")
        #expect(!production.stderr.contains("--sandbox"), "no hint of the other flag: \(production.stderr)")

        // Without a flag, or with the recorded one, there is nothing to say.
        for arguments in [["--body", "hi"], ["--production", "--device", "phone", "--body", "hi"]] {
            let quiet = try BuiltTool.run("send-push", arguments, environment: environment)
            #expect(quiet.status == 0 && !quiet.stderr.contains("recorded"), "\(arguments): \(quiet.stderr)")
        }
    }
}
