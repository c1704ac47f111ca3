import Foundation
import Testing

/// SIGINT or SIGTERM during a fan-out: sending stops, the answers on their way are waited for a
/// moment, then the report says which devices got an answer, which are unknown (sent, no answer:
/// APNs may have delivered them) and which were not tried, and the exit status is 128 plus the
/// signal's number.
@Suite("send-push interrupted: what happened is reported")
struct InterruptTests {
    static let deviceCount = 600

    @Test(
        "SIGINT and SIGTERM with requests in flight: unknown and not tried in the report, exit 130 / 143",
        arguments: [SIGINT, SIGTERM])
    func interrupted(signal: Int32) throws {
        let setup = try ProviderSetup()
        // The first device is answered; every other device's request stalls, in flight until the
        // run gives up on it.
        var script = ""
        for index in 1..<Self.deviceCount { script += String(format: "%064x", index + 1) + " stall\n" }
        try script.write(toFile: setup.directory.file("script"), atomically: true, encoding: .utf8)
        let emulator = try RunningEmulator(
            ["--script-file", setup.directory.file("script")], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        try SystemicFailureTests.writeDevices(to: setup.directory.file("devices.json"), count: Self.deviceCount)

        let run = try BuiltTool.start("send-push", ["--body", "hi", "--timeout", "60"], environment: environment)
        // The answered device's line comes out while the others are still in flight: streamed.
        let deadline = Date().addingTimeInterval(30)
        while !run.stdoutSoFar.contains("delivered    device-00000"), Date() < deadline { usleep(10_000) }
        #expect(run.stdoutSoFar.contains("delivered    device-00000"), "the line was not written during the run")
        #expect(run.process.isRunning)
        kill(run.process.processIdentifier, signal)
        let result = try run.wait()

        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stderr.contains("interrupted (\(signal == SIGINT ? "SIGINT" : "SIGTERM"))"), "\(result.stderr)")
        // The requests in flight end unknown: APNs may have delivered them. (On a loaded machine the
        // emulator may be late answering the transport's PING in the quiet wait; the connection is
        // then closed as silent first, and those requests end failed, saying so.)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let unknown = lines.filter { $0.hasPrefix("unknown") }
        let inFlight = lines.filter { !$0.hasPrefix("delivered") && !$0.hasPrefix("not_tried") }
        #expect(!inFlight.isEmpty, "\(result.stdout.suffix(600))\n\(result.stderr)")
        #expect(
            inFlight.allSatisfy {
                ($0.hasPrefix("unknown") && $0.contains("APNs may have delivered it"))
                    || ($0.hasPrefix("failed") && $0.contains("went silent"))
            }, "\(inFlight.prefix(3))")
        #expect(result.stdout.contains("devices: the run was interrupted before they were sent"), "\(result.stdout)")
        if !unknown.isEmpty { #expect(result.stderr.contains("\(unknown.count) unknown"), "\(result.stderr)") }
        #expect(result.stderr.contains("not tried"), "\(result.stderr)")
    }
}

/// On a terminal, `send-push` keeps a status line on standard error while it sends (how many of
/// how many, the rate, the time left) and erases it at the end; off a terminal there is none.
@Suite("send-push's status line on a terminal")
struct StatusLineTests {
    @Test("under a pseudo-terminal the status line is drawn and erased; into a file, none")
    func statusLine() throws {
        let setup = try ProviderSetup()
        // Answers half a second late, so the run lasts past the status line's first drawing.
        let emulator = try RunningEmulator(["--quiet", "--delay", "500"], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        try SystemicFailureTests.writeDevices(to: setup.directory.file("devices.json"), count: 50)

        // script(1) runs the command with a pseudo-terminal as its standard streams.
        let command = "\(BuiltTool.path("send-push")) --body hi"
        let process = BuiltTool.process("script", ["-qec", command, "/dev/null"], environment: environment)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let onTerminal = try RunningTool(process, stdin: nil).wait()
        #expect(onTerminal.status == 0, "\(onTerminal.stdout)")
        #expect(onTerminal.stdout.contains(" of 50 done"), "\(onTerminal.stdout.prefix(400))")
        #expect(onTerminal.stdout.contains("\r\u{1b}[K"), "the status line is erased")
        #expect(onTerminal.stdout.contains("50 delivered"))

        let toFile = try BuiltTool.run("send-push", ["--body", "hi"], environment: environment)
        #expect(toFile.status == 0)
        #expect(!toFile.stderr.contains("done") && !toFile.stderr.contains("\u{1b}"), "\(toFile.stderr)")
    }

    @Test("interrupted on a terminal: once sending stopped, the status line gives no time left")
    func statusLineAfterInterrupt() throws {
        let setup = try ProviderSetup()
        // The first device is answered; every other device's request stalls, in flight until the
        // run gives up on it, so the status line has a rate and a time left to show before the signal.
        var script = ""
        for index in 1..<50 { script += String(format: "%064x", index + 1) + " stall\n" }
        try script.write(toFile: setup.directory.file("script"), atomically: true, encoding: .utf8)
        let emulator = try RunningEmulator(
            ["--quiet", "--script-file", setup.directory.file("script")], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        try SystemicFailureTests.writeDevices(to: setup.directory.file("devices.json"), count: 50)

        // script(1) gives send-push a pseudo-terminal; the shell prints its process id, which exec keeps.
        let command = "echo pid=$$; exec \(BuiltTool.path("send-push")) --body hi --timeout 60"
        let process = BuiltTool.process("script", ["-qec", command, "/dev/null"], environment: environment)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let run = try RunningTool(process, stdin: nil)
        let deadline = Date().addingTimeInterval(30)
        while !run.stdoutSoFar.contains(" s left"), Date() < deadline { usleep(20_000) }
        #expect(run.stdoutSoFar.contains(" s left"), "\(run.stdoutSoFar.suffix(400))")
        let pid = try #require(run.stdoutSoFar.firstMatch(of: /pid=(\d+)/).flatMap { pid_t($0.1) })
        kill(pid, SIGINT)
        let result = try run.wait()

        let interrupted = try #require(result.stdout.range(of: "interrupted (SIGINT)"), "\(result.stdout.suffix(600))")
        let after = result.stdout[interrupted.upperBound...]
        #expect(after.contains("of 50 done, interrupted: waiting for the answers on their way"), "\(after.prefix(600))")
        #expect(!after.contains(" s left"), "a time left after the interrupt: \(after.prefix(600))")
    }
}
