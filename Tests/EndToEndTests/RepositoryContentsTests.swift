import Foundation
import Testing

/// What the repository holds: the source, never what a tool writes while it runs.
@Suite("the repository holds no tool's cache")
struct RepositoryContentsTests {
    /// Where the test tools keep state of their own in the directory they run from: schemathesis's
    /// cache and recorded failures, hypothesis's example database.
    static let toolCaches = [".schemathesis", ".hypothesis"]

    @Test("schemathesis's and hypothesis's folders are neither tracked nor shown as untracked")
    func toolCachesIgnored() throws {
        let tracked = try BuiltTool.runSystem("git", ["-C", RepositoryFiles.root, "ls-files", "--"] + Self.toolCaches)
        #expect(tracked.status == 0, "\(tracked.stderr)")
        #expect(tracked.stdout.isEmpty, "tracked:\n\(tracked.stdout)")
        for folder in Self.toolCaches {
            // --no-index: asks .gitignore itself, whether or not the path is tracked.
            let ignored = try BuiltTool.runSystem(
                "git",
                ["-C", RepositoryFiles.root, "check-ignore", "--quiet", "--no-index", folder + "/default/x.json"])
            #expect(ignored.status == 0, "\(folder)/ is not in .gitignore")
        }
    }
}
