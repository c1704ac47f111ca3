import Foundation
import Testing

/// `make release` (packaging/release.sh): what it refuses to release, and what a release holds.
/// Each test works in a clone of this repository, changed and committed there; the packages
/// themselves are `make deb`'s (checked by `make deb-test`), stood in for here by files of their name.
@Suite("make release: only a committed, described version, with its checksums")
struct ReleaseTests {
    /// A clone of the repository at HEAD, made releasable: its version's CHANGELOG section dated and
    /// nothing under Unreleased.
    final class Clone {
        let directory: TemporaryDirectory
        let path: String
        let version: String

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.file("tree")
            try Self.git(["clone", "--quiet", "--no-hardlinks", RepositoryFiles.root, path], in: directory.path)
            let versionFile = try String(
                contentsOfFile: path + "/Sources/PushKitFreeCore/System/PushKitFree.swift", encoding: .utf8)
            version =
                versionFile.components(separatedBy: "static let version = \"")[1]
                .components(separatedBy: "\"")[0]
            // Unreleased's lines, if any, become the version's own section; an empty Unreleased
            // heading stays (or is added) above it.
            let changelog = try read("CHANGELOG.md")
            var lines = changelog.components(separatedBy: "\n")
            let unreleased =
                lines.firstIndex(of: "## Unreleased")
                ?? {
                    let first = lines.firstIndex { $0.hasPrefix("## ") } ?? lines.count
                    lines.insert("## Unreleased", at: first)
                    return first
                }()
            let pending = lines[(unreleased + 1)...].prefix { !$0.hasPrefix("## ") }
                .contains { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            if pending || !changelog.contains("## \(version) – ") {
                lines[unreleased] = "## Unreleased\n\n## \(version) – 2026-11-26"
            }
            let releasable = lines.joined(separator: "\n")
            if releasable != changelog {
                try write("CHANGELOG.md", releasable)
                try commit("release \(version)")
            }
        }

        func read(_ file: String) throws -> String { try String(contentsOfFile: path + "/" + file, encoding: .utf8) }
        func write(_ file: String, _ text: String) throws {
            try text.write(toFile: path + "/" + file, atomically: true, encoding: .utf8)
        }
        func commit(_ message: String) throws {
            try Self.git(["add", "-A"], in: path)
            try Self.git(
                [
                    "-c", "user.name=Release Test", "-c", "user.email=release@example.com", "commit", "--quiet", "-m",
                    message,
                ],
                in: path)
        }
        func release(_ arguments: [String]) throws -> ToolResult {
            try BuiltTool.runSystem("bash", [path + "/packaging/release.sh"] + arguments, directory: path)
        }

        static func git(_ arguments: [String], in directory: String) throws {
            let result = try BuiltTool.runSystem("git", arguments, directory: directory)
            #expect(result.status == 0, "git \(arguments): \(result.stderr)")
        }
    }

    @Test("a committed tree whose version has its dated CHANGELOG section passes the checks")
    func releasable() throws {
        let clone = try Clone()
        let check = try clone.release(["--check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("make release: \(clone.version) ("), "\(check.stdout)")
    }

    @Test("refused: a changed or an untracked file, named")
    func uncommitted() throws {
        let clone = try Clone()
        try clone.write("README.md", try clone.read("README.md") + "\nmore\n")
        try clone.write("notes.txt", "scratch\n")
        let check = try clone.release(["--check"])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(
            check.stderr.contains("changes not committed") && check.stderr.contains("README.md")
                && check.stderr.contains("notes.txt"), "\(check.stderr)")
    }

    @Test("refused: no dated section for the version, or changes left under Unreleased")
    func changelog() throws {
        let clone = try Clone()
        let changelog = try clone.read("CHANGELOG.md")
        try clone.write(
            "CHANGELOG.md", changelog.replacingOccurrences(of: "## \(clone.version) – ", with: "## \(clone.version) "))
        try clone.commit("undated")
        let undated = try clone.release(["--check"])
        #expect(undated.status == 1 && undated.stderr.contains("no section '## \(clone.version) – YYYY-MM-DD'"))

        try clone.write(
            "CHANGELOG.md", changelog.replacingOccurrences(of: "## Unreleased\n", with: "## Unreleased\n- a fix\n"))
        try clone.commit("unlisted change")
        let pending = try clone.release(["--check"])
        #expect(pending.status == 1 && pending.stderr.contains("lists changes under Unreleased"), "\(pending.stderr)")
    }

    @Test("refused: docs/openapi.yaml's version differs from the tools'")
    func openAPIVersion() throws {
        let clone = try Clone()
        let document = try clone.read("docs/openapi.yaml")
        try clone.write(
            "docs/openapi.yaml",
            document.replacingOccurrences(of: "  version: \(clone.version)\n", with: "  version: 9.9.9\n"))
        try clone.commit("mismatch")
        let check = try clone.release(["--check"])
        #expect(check.status == 1 && check.stderr.contains("docs/openapi.yaml says version 9.9.9"), "\(check.stderr)")
    }

    @Test("a release: the packages, the source of HEAD and SHA256SUMS that sha256sum -c verifies")
    func assembled() throws {
        let clone = try Clone()
        let packages = try TemporaryDirectory()
        let main = try packages.write("pushkit-free_\(clone.version)_amd64.deb", "main package\n")
        let symbols = try packages.write("pushkit-free-dbgsym_\(clone.version)_amd64.deb", "debug symbols\n")
        let list = try packages.write("last", main + "\n" + symbols + "\n")
        let dist = packages.file("dist")
        let release = try clone.release([list, dist])
        #expect(release.status == 0, "\(release.stderr)")
        let folder = dist + "/" + clone.version
        let verify = try BuiltTool.runSystem("sha256sum", ["-c", "SHA256SUMS"], directory: folder)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let sums = try String(contentsOfFile: folder + "/SHA256SUMS", encoding: .utf8)
        for file in [
            "pushkit-free_\(clone.version)_amd64.deb", "pushkit-free-dbgsym_\(clone.version)_amd64.deb",
            "pushkit-free-\(clone.version).tar.gz",
        ] {
            #expect(sums.contains("  " + file + "\n"), "\(sums)")
        }
        let listing = try BuiltTool.runSystem("tar", ["-tzf", folder + "/pushkit-free-\(clone.version).tar.gz"])
        #expect(listing.stdout.contains("pushkit-free-\(clone.version)/Package.swift\n"))
        #expect(!listing.stdout.contains(".build/"), "the source is what git holds, no build products")

        // A package of another version in the list is refused (a stale `make deb`).
        let stale = try packages.write("pushkit-free_0.0.1_amd64.deb", "old\n")
        let staleList = try packages.write("stale", stale + "\n")
        let refused = try clone.release([staleList, dist])
        #expect(refused.status == 1 && refused.stderr.contains("is not version \(clone.version)"), "\(refused.stderr)")
    }
}
