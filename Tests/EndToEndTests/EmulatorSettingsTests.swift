import Foundation
import Testing

/// Pointing the tools at the emulator: `apns-emulator --print-env` prints, for `eval`, the settings
/// that send both environments' requests to it and trust its CA, and the emulator names the same
/// settings on standard error when it starts.
@Suite("the emulator names the settings that point the tools at it")
struct EmulatorSettingsTests {
    @Test("eval \"$(apns-emulator --print-env)\" points register-apns and send-push --sandbox at the emulator")
    func printEnvironment() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator([], environment: setup.environment)
        let token = String(repeating: "5a", count: 32)
        var environment = setup.environment
        environment["PATH"] =
            BuiltTool.binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        // The newcomer's path: no URL or CA set by hand; --sandbox would otherwise go to Apple.
        let script = """
            set -e
            eval "$(apns-emulator --print-env --port \(emulator.port))"
            register-apns phone \(token) --sandbox
            send-push --sandbox --title Hello --body "from the emulator"
            """
        let process = BuiltTool.process("bash", ["-c", script], environment: environment)
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let result = try RunningTool(process, stdin: nil).wait()
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let records = emulator.waitForRecords(1)
        #expect(records.first?["device_token"] as? String == token, "\(records)")
        // Written before the first request was served, so it is there now.
        let named =
            "export APNS_PRODUCTION_URL='https://127.0.0.1:\(emulator.port)' "
            + "APNS_SANDBOX_URL='https://127.0.0.1:\(emulator.port)' APNS_CA_FILE='\(emulator.caPath)'"
        #expect(emulator.stderr.contains(named), "\(emulator.stderr)")
    }

    @Test("--print-env with --port 0 is a usage error: the port must be the emulator's")
    func printEnvironmentNeedsThePort() throws {
        let setup = try ProviderSetup()
        let result = try BuiltTool.run("apns-emulator", ["--print-env", "--port", "0"], environment: setup.environment)
        #expect(result.status == 64 && result.stderr.contains("--print-env needs the port"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
