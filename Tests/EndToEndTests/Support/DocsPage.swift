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
        "README.md", "docs/guide.md", "docs/reference.md", "docs/internals.md",
    ].map(DocsPage.init(path:))

    /// The migration pages (`docs/migrating/*.md`), whose commands `MigrationPagesTests` runs.
    static let migrating: [DocsPage] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("docs/migrating"))) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { DocsPage(path: "docs/migrating/" + $0) }
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
}
