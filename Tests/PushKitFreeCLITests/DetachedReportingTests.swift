import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore

/// Where `send-push --detach` and `--hook` report: standard error until the process detaches, then
/// push.log, warnings first and then the outcome or the error.
@Suite("detached reporting")
struct DetachedReportingTests {
    final class Lines: @unchecked Sendable {
        var lines: [String] = []
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("detached-\(UUID().uuidString)").path
    let at = Date(timeIntervalSince1970: 1_795_392_000)

    func reporting(_ written: Lines) -> DetachedReporting {
        DetachedReporting(
            log: PushLog(stateDirectory: directory, limit: 1 << 20), messageID: "msg-7",
            writeWarning: { written.lines.append($0) }, clock: { [at] in at })
    }

    func logged() throws -> [JSONValue] {
        try String(contentsOfFile: directory + "/push.log", encoding: .utf8).split(separator: "\n")
            .map { try JSONValue.parse(Data($0.utf8)) }
    }

    func report() throws -> DeliveryReport {
        let target = DeliveryTarget(
            deviceID: "ipad", token: try DeviceToken(validating: String(repeating: "ab", count: 32)),
            recordedEnvironment: nil)
        return DeliveryReport.skipped([target], reason: "frequency cap") { _ in .sandbox }
    }

    @Test("before detaching a warning goes to the user at once and nothing is logged")
    func beforeDetaching() throws {
        let written = Lines()
        let reporting = reporting(written)
        reporting.warn("the key file is readable by others")
        #expect(written.lines == ["the key file is readable by others"])
        #expect(!reporting.detached)
        #expect(!FileManager.default.fileExists(atPath: directory + "/push.log"))
    }

    @Test("once detached, warnings wait and go to push.log before the outcome of each device")
    func afterDetaching() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = Lines()
        let reporting = reporting(written)
        reporting.didDetach()
        reporting.warn("the registry was not updated: disk full")
        #expect(written.lines.isEmpty)
        reporting.delivered(try report())
        let records = try logged()
        #expect(records.count == 2)
        #expect(records[0]["outcome"] == "warning" && records[0]["reason"] == "the registry was not updated: disk full")
        #expect(records[1]["outcome"] == "skipped" && records[1]["device"] == "ipad")
        #expect(records.allSatisfy { $0["message_id"] == "msg-7" })
    }

    @Test("an error after detaching is logged with its exit status (70 when it names none)")
    func failedAfterDetaching() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reporting = reporting(Lines())
        reporting.didDetach()
        reporting.warn("a warning first")
        reporting.failed(ConfigurationError("no topic"), message: "no topic")
        struct Unknown: Error {}
        reporting.failed(Unknown(), message: "something else")
        let records = try logged()
        #expect(records.map { $0["outcome"] } == ["warning", "error", "error"])
        #expect(records[1]["exit_status"] == 78 && records[1]["reason"] == "no topic")
        #expect(records[2]["exit_status"] == 70)
    }
}
