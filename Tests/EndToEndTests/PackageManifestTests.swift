import Foundation
import Testing

/// Package.swift as SwiftPM reads it.
@Suite("Package.swift: every package pinned, none unused")
struct PackageManifestTests {
    /// `swift package dump-package`, which compiles the manifest only, in a scratch directory of its
    /// own (the test run holds the package's `.build`).
    static func manifest() throws -> [String: Any] {
        let scratch = try TemporaryDirectory()
        let result = try BuiltTool.runSystem(
            "swift",
            ["package", "--package-path", RepositoryFiles.root, "--scratch-path", scratch.path, "dump-package"])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test("each package is at an exact version and named by a target: SwiftPM warns of a package no target names")
    func dependenciesPinnedAndNamed() throws {
        let manifest = try Self.manifest()
        let dependencies = (manifest["dependencies"] as? [[String: Any]] ?? []).compactMap {
            ($0["sourceControl"] as? [[String: Any]])?.first
        }
        #expect(dependencies.count >= 20)
        var named: Set<String> = []
        for target in manifest["targets"] as? [[String: Any]] ?? [] {
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                // ["Product", "package", module aliases, condition]
                guard let product = dependency["product"] as? [Any], product.count > 1 else { continue }
                if let package = product[1] as? String { named.insert(package.lowercased()) }
            }
        }
        for dependency in dependencies {
            let identity = dependency["identity"] as? String ?? "?"
            #expect((dependency["requirement"] as? [String: Any])?["exact"] != nil, "\(identity): not an exact version")
            #expect(named.contains(identity), "\(identity): no target names it, so SwiftPM warns it is not used")
        }
    }
}
