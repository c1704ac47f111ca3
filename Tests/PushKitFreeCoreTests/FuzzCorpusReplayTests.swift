import Foundation
import Testing
import PushKitFreeCore

/// Replays every kept fuzz input (`Fuzz/Corpus/<target>/`) through the checks the libFuzzer
/// targets make (`FuzzHarness/`, a link to `Fuzz/Sources/FuzzHarness`), so an input that once
/// crashed or broke a property stays fixed without building the fuzz package.
@Suite("fuzz corpus replay")
struct FuzzCorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(of target: FuzzTarget) throws -> [URL] {
        let directory = corpus.appendingPathComponent(target.rawValue)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("every kept input parses or is refused with a message, and what is written reads back", arguments: FuzzTarget.allCases)
    func replays(_ target: FuzzTarget) throws {
        let files = try Self.inputs(of: target)
        // The hand-made seeds alone are more than this; an empty or lost corpus must not pass.
        #expect(files.count >= 5, "Fuzz/Corpus/\(target.rawValue) holds \(files.count) files")
        for file in files {
            let input = try [UInt8](Data(contentsOf: file))
            do throws(FuzzViolation) {
                try target.check(input)
            } catch {
                Issue.record("Fuzz/Corpus/\(target.rawValue)/\(file.lastPathComponent): \(error.message)")
            }
        }
    }

    @Test("a broken property is reported: a state file that does not round-trip would fail")
    func harnessCanFail() {
        // The replay only proves something if the checks can fail: an input each target must accept
        // is checked to pass, and a made-up violation is seen as one.
        #expect(throws: FuzzViolation.self) { try FuzzViolation.require(false, "made up") }
        #expect(throws: Never.self) { try FuzzTarget.stateFile.check(Array(#"{"version":1,"devices":{}}"#.utf8)) }
    }
}
