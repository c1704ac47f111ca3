import Foundation
import Testing
import PushKitFreeCore
import PushKitFreeRegistry
@testable import FuzzHarness

/// Replays every kept fuzz input (`Fuzz/Corpus/<target>/`) through the checks the libFuzzer
/// targets make (the `FuzzHarness` library, `Tests/FuzzHarness/`, which the fuzz package's
/// programs link), so an input that once crashed or broke a property stays fixed without building
/// the fuzz package.
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

    @Test(
        "every kept input parses or is refused with a message, and what is written reads back",
        arguments: FuzzTarget.allCases)
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

    @Test("the checks can fail: a reason that would split send-push's report is a violation")
    func checksCanFail() throws {
        #expect(throws: FuzzViolation.self) { try FuzzViolation.require(false, "made up") }
        // Refused without a message: a violation.
        #expect(throws: FuzzViolation.self) { try FuzzViolation.requireMessage(" \n", from: "a parser") }
        // A registry that does not read back as written (NaN is written as null) is reported.
        #expect(throws: FuzzViolation.self) {
            try FuzzTarget.requireRoundTrip(
                RegisteredDevices(otherFields: ["x": .number(.nan)]), "made-up registry", exact: true)
        }
    }
}
