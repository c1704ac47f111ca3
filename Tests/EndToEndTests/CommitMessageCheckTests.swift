import Foundation
import Testing

/// The repository's `commit-msg` hook, turned on with `make hooks` in a scratch repository and met
/// by real `git commit`s: a subject of at most 72 characters, in the imperative, passes; one that
/// describes, runs long or ends with a full stop is refused with its reason, and nothing is
/// committed.
@Suite("make hooks: the commit-msg check")
struct CommitMessageCheckTests {
    /// A scratch repository whose hooks are the repository's own `.githooks`, turned on by `make hooks`.
    final class ScratchRepository {
        let path: String

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: RepositoryFiles.path(".githooks"), toPath: path + "/.githooks")
            let initialized = try BuiltTool.runSystem("git", ["init", "--quiet", path])
            #expect(initialized.status == 0, "\(initialized.stderr)")
            let hooks = try BuiltTool.runSystem(
                "make", ["--no-print-directory", "-f", RepositoryFiles.path("Makefile"), "hooks"], directory: path)
            #expect(hooks.status == 0, "make hooks: \(hooks.stderr)")
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Commits a change with `message`; returns git's result.
        func commit(_ message: String) throws -> ToolResult {
            let file = path + "/notes.txt"
            let previous = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            try (previous + message + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            _ = try BuiltTool.runSystem("git", ["-C", path, "add", "notes.txt"])
            return try BuiltTool.runSystem(
                "git",
                ["-C", path, "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-m", message])
        }

        /// How many commits the repository holds.
        func commitCount() throws -> Int {
            let count = try BuiltTool.runSystem("git", ["-C", path, "rev-list", "--count", "--all"])
            return Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
    }

    @Test("make hooks points git at .githooks")
    func makeHooksConfigures() throws {
        let repository = try ScratchRepository()
        let configured = try BuiltTool.runSystem("git", ["-C", repository.path, "config", "core.hooksPath"])
        #expect(configured.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ".githooks")
    }

    @Test(
        "a short subject in the imperative is committed",
        arguments: [
            "Add the commit-msg check",
            "Registry: Fold the journal when the queue stops",
            "Focus the doctor on the key's mode",
            "Add the check\n\nThe body may say what and why at any length it needs, on as many lines as it takes.",
            String(repeating: "x", count: 72),
        ])
    func accepted(message: String) throws {
        let repository = try ScratchRepository()
        let result = try repository.commit(message)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try repository.commitCount() == 1)
    }

    @Test(
        "a subject that describes, runs long or ends with a full stop is refused with its reason",
        arguments: [
            ("Added the commit-msg check", "begin with a verb in the imperative"),
            ("Fixes the fold at shutdown", "begin with a verb in the imperative"),
            ("Registry: folding the journal", "begin with a verb in the imperative"),
            ("Sven's flat map is kept", "begin with a verb in the imperative"),
            (String(repeating: "x", count: 73), "the subject is 73 characters, more than 72"),
            ("Fix the fold.", "the subject ends with a full stop"),
            ("Fix the fold\nat shutdown", "leave one blank line between the subject and the body"),
        ])
    func refused(message: String, reason: String) throws {
        let repository = try ScratchRepository()
        let result = try repository.commit(message)
        #expect(result.status != 0)
        #expect(result.stderr.contains("commit-msg: the") && result.stderr.contains(reason), "\(result.stderr)")
        #expect(try repository.commitCount() == 0, "a refused message was committed")
    }
}
