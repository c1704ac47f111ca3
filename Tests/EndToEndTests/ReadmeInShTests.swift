import Foundation
import Testing

/// The README's first push is a ```` ```sh ```` block, so it must run in `sh` as Debian has it
/// (dash, without job control), not only in bash, which `DocsCommandsTests` runs every block with.
@Suite("the README's first push in sh")
struct ReadmeInShTests {
    @Test("the emulator block runs in sh, and stops the apns-emulator it started")
    func firstPushInSh() throws {
        let block = try #require(
            try DocsPage(path: "README.md").blocks().first { block in
                block.language == "sh" && block.lines.contains { $0.hasPrefix("apns-emulator ") }
            })
        let scratch = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: scratch.file("bin"), withIntermediateDirectories: true)
        // apns-emulator on a free port rather than 2197, which another test run may hold; each one
        // started notes its process id (exec keeps it) and closes what it inherited beyond the
        // standard streams (the test's process watches one descriptor until every holder has exited).
        let port = try LoopbackPort.unused()
        try scratch.write(
            "bin/apns-emulator",
            """
            #!/bin/bash
            echo $$ >> '\(scratch.file("pids"))'
            for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done
            exec '\(BuiltTool.path("apns-emulator"))' --port \(port) "$@"
            """, mode: 0o755)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-eu", "-c", block.lines.joined(separator: "\n")]
        process.environment = BuiltTool.childEnvironment([
            "HOME": scratch.file("home"), "PATH": scratch.file("bin") + ":" + BuiltTool.binDirectory + ":/usr/bin:/bin",
        ])
        let result = try RunningTool(process, stdin: nil).wait()
        let started = ((try? scratch.read("pids")) ?? "").split(separator: "\n").compactMap { pid_t($0) }
        defer { for pid in started where Self.isEmulator(pid) { kill(pid, SIGKILL) } }

        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains(#""body":"My first push""#), "\(result.stdout)")
        #expect(!started.isEmpty)
        // The block's kill ends the emulator; it exits once it has closed its connections.
        let deadline = Date().addingTimeInterval(10)
        while started.contains(where: Self.isEmulator), Date() < deadline { usleep(20_000) }
        #expect(!started.contains(where: Self.isEmulator), "the block left its apns-emulator running")
    }

    /// Whether `pid` is a running (not a zombie) process of the built emulator's program.
    static func isEmulator(_ pid: pid_t) -> Bool {
        let program = URL(fileURLWithPath: BuiltTool.path("apns-emulator")).resolvingSymlinksInPath().path
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == program else {
            return false
        }
        return !PageRun.isZombie(pid)
    }
}
