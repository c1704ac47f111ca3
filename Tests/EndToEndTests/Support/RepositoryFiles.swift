import Foundation

/// Files of this repository the tests read (documents, examples, test tools).
enum RepositoryFiles {
    /// The repository's top directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// `relative` (e.g. `docs/openapi.yaml`) as an absolute path.
    static func path(_ relative: String) -> String { root + "/" + relative }
}
