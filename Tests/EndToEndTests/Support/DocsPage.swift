import Foundation
import Testing

/// A page of the documentation and its fenced code blocks.
struct DocsPage: Sendable, CustomTestStringConvertible {
    /// One fenced block of a page.
    struct Block: Sendable {
        /// The word after the opening fence (`sh`, `text`, ...); empty when there is none.
        let language: String
        /// The lines between the fences, without the fence's indentation.
        let lines: [String]
        /// The page's line number (from 1) of the block's first line.
        let firstLine: Int
    }

    /// The path from the repository's top, e.g. `docs/guide.md`.
    let path: String

    var testDescription: String { path }

    /// The pages whose ```` ```sh ```` blocks `DocsCommandsTests` runs, each on its own.
    static let run: [DocsPage] = [
        "README.md", "docs/guide.md", "docs/reference.md", "docs/internals.md", "docs/hooks-and-cron.md",
        "docs/register-apns.md", "docs/register-apns-serve.md",
    ].map(DocsPage.init(path:))

    /// The migration pages (`docs/migrating/*.md`), whose commands `MigrationPagesTests` runs.
    static let migrating: [DocsPage] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("docs/migrating"))) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { DocsPage(path: "docs/migrating/" + $0) }
    }()

    /// Every Markdown page of the documentation: `docs/`, `docs/migrating/` and `bench/README.md`.
    static let all: [DocsPage] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("docs"))) ?? []
        return docs.filter { $0.hasSuffix(".md") }.sorted().map { DocsPage(path: "docs/" + $0) } + migrating
            + [DocsPage(path: "bench/README.md")]
    }()

    /// The page's text.
    func text() throws -> String {
        try String(contentsOfFile: RepositoryFiles.path(path), encoding: .utf8)
    }

    /// The page's fenced blocks, in order. A fence may be indented (inside a list item); its
    /// indentation is removed from the block's lines.
    func blocks() throws -> [Block] {
        var blocks: [Block] = []
        var open: (language: String, indentation: Int, lines: [String], first: Int)?
        for (number, line) in try text().components(separatedBy: "\n").enumerated() {
            let indentation = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indentation)
            if trimmed.hasPrefix("```") {
                if let block = open {
                    blocks.append(Block(language: block.language, lines: block.lines, firstLine: block.first))
                    open = nil
                } else {
                    let language = String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                    open = (language, indentation, [], number + 2)
                }
            } else if open != nil {
                let removable = min(open!.indentation, indentation)
                open!.lines.append(String(line.dropFirst(removable)))
            }
        }
        return blocks
    }

    /// The targets of the page's Markdown links (`[text](target)`) outside code, with their line.
    func links() throws -> [(line: Int, target: String)] {
        var links: [(line: Int, target: String)] = []
        for (number, line) in try proseLines() {
            let prose = line.replacing(/`[^`]*`/) { _ in "" }
            for match in prose.matches(of: /\]\(([^)\s]+)\)/) { links.append((number, String(match.1))) }
        }
        return links
    }

    /// The anchors of the page's headings, as GitHub makes them: lowercase, code marks, links and
    /// punctuation removed, spaces as hyphens, a repeated one numbered.
    func anchors() throws -> Set<String> {
        Set(try headings().map(\.anchor))
    }

    /// The page's headings in order: each one's level (2 for `## `) and anchor (see `anchors()`).
    func headings() throws -> [(level: Int, anchor: String)] {
        var headings: [(level: Int, anchor: String)] = []
        var anchors: Set<String> = []
        for (_, line) in try proseLines() where line.hasPrefix("#") {
            let level = line.prefix { $0 == "#" }.count
            var heading = String(line.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces)
            heading = heading.replacing(/\[([^\]]*)\]\([^)]*\)/) { String($0.1) }
            let slug = String(
                heading.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
                    .map { $0 == " " ? "-" : $0 })
            var anchor = slug
            var repeats = 0
            while anchors.contains(anchor) {
                repeats += 1
                anchor = "\(slug)-\(repeats)"
            }
            anchors.insert(anchor)
            headings.append((level, anchor))
        }
        return headings
    }

    /// The lines outside fenced blocks, with their line numbers (from 1).
    private func proseLines() throws -> [(Int, String)] {
        var lines: [(Int, String)] = []
        var fenced = false
        for (number, line) in try text().components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
            } else if !fenced {
                lines.append((number + 1, line))
            }
        }
        return lines
    }
}
