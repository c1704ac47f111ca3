import Foundation
import Testing

/// Every command README.md shows is run here, so the README cannot drift from the tools.
///
/// - ```` ```sh ```` blocks are run in order, each by `bash -euo pipefail`, in one working directory
///   and one `HOME`, with the variables a block exports carried to the next. Apple is not reachable
///   from a test, so the same `apns-emulator` stands in for both APNs environments
///   (`APNS_PRODUCTION_URL`, `APNS_SANDBOX_URL`, `APNS_CA_FILE`), trusting the key the README's
///   set-up names (`~/keys/AuthKey_ABCDE12345.p8`, made here by openssl).
/// - ```` ```console ```` blocks may hold only `$ make ...` lines: `make demo` is run by the demo's
///   own test, and `make test` is this suite.
/// - ```` ```text ````, ```` ```json ````, ```` ```python ```` blocks are output, files and code
///   taken from `examples/` (which the examples' tests run).
@Suite("README commands")
struct ReadmeCommandsTests {
    struct Block {
        let language: String
        let lines: [String]
        let firstLine: Int
    }

    static let readmePath = RepositoryFiles.path("README.md")

    static func blocks() throws -> [Block] {
        let text = try String(contentsOfFile: readmePath, encoding: .utf8)
        var blocks: [Block] = []
        var current: (language: String, lines: [String], first: Int)?
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let open = current {
                    blocks.append(Block(language: open.language, lines: open.lines, firstLine: open.first))
                    current = nil
                } else {
                    current = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [], number + 2)
                }
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return blocks
    }

    @Test("every fenced block is of a known kind; console blocks hold only make targets")
    func blockKinds() throws {
        let blocks = try Self.blocks()
        #expect(blocks.filter { $0.language == "sh" }.count >= 8)
        for block in blocks {
            #expect(
                ["sh", "console", "text", "json", "python"].contains(block.language),
                "README.md:\(block.firstLine): a ```\(block.language) block is neither run nor declared as output")
            if block.language == "console" {
                for line in block.lines where !line.isEmpty {
                    #expect(line.hasPrefix("$ make "), "README.md:\(block.firstLine): \(line)")
                }
            }
        }
    }

    @Test("every '$ ' line of the README's transcripts and of the demo's output can be pasted into a shell")
    func transcriptsArePasteable() throws {
        let readme = try Self.blocks().filter { $0.language == "text" }.flatMap(\.lines)
        let shownByDemo = try BuiltTool.runSystem(
            "bash",
            [
                "-c",
                """
                BIN=/bin
                eval "$(sed -n '/^shown() {/,/^}/p' \(RepositoryFiles.path("examples/demo.sh")))"
                shown register-apns phone 7f1c --name "Ada's iPhone" --body 'say "hi" for $5' plain
                """,
            ])
        #expect(
            shownByDemo.stdout == #"register-apns phone 7f1c --name "Ada's iPhone" --body "say \"hi\" for \$5" plain"#)
        let lines = readme.filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) } + [shownByDemo.stdout]
        #expect(lines.count >= 5)
        for line in lines {
            // Parsed by bash into words, each printed on its own line: a stray quote fails to parse.
            let parsed = try BuiltTool.runSystem(
                "bash", ["-c", "eval \"set -- $1\" && printf '%s\\n' \"$@\"", "_", line])
            #expect(parsed.status == 0, "not pasteable: \(line)\n\(parsed.stderr)")
        }
    }

    @Test("every sh block runs, in order, against the emulator")
    func shellBlocksRun() throws {
        let docs = try DocsHome(topic: "com.yourcompany.Sven")
        let directory = docs.directory, home = docs.home, emulator = docs.emulator
        let work = directory.file("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let environmentFile = directory.file("exported.sh")
        try "".write(toFile: environmentFile, atomically: true, encoding: .utf8)
        let logPath = home + "/.local/state/pushkit-free/push.log"

        var ran = 0
        for block in try Self.blocks() where block.language == "sh" {
            if block.lines.contains(where: { $0.contains("push.log") }) {
                // The log is written by the background deliveries of earlier blocks: wait for them
                // the way a user would look a moment later.
                let deadline = Date().addingTimeInterval(20)
                while (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n").count ?? 0 < 2,
                    Date() < deadline
                {
                    usleep(20_000)
                }
            }
            let script =
                "set -euo pipefail\nsource \(environmentFile)\ncd \(work)\n" + block.lines.joined(separator: "\n")
                + "\nexport -p > \(environmentFile)\n"
            let result = try docs.bash(script, directory: work)
            #expect(
                result.status == 0,
                "README.md:\(block.firstLine) failed (exit \(result.status)):\n\(result.stdout)\n\(result.stderr)")
            #expect(!result.stderr.contains("unexpected error"), "README.md:\(block.firstLine): \(result.stderr)")
            ran += 1
        }
        #expect(ran >= 8)
        let records = emulator.records()
        #expect(
            records.contains {
                ($0["payload"] as? [String: Any]).map { "\($0)".contains("Hello from the server") } ?? false
            },
            "the first screen's send-push reached the stand-in APNs")
        #expect(
            records.allSatisfy { $0["status"] as? Int == 200 },
            "every push the README sends is accepted: \(records.filter { $0["status"] as? Int != 200 })")
    }
}
