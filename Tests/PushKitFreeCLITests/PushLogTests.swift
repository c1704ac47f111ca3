import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore

private let midnightUTC = Date(timeIntervalSince1970: 1_795_392_000)

@Suite("push log")
struct PushLogTests {
    @Test("records are appended one per line, 0600 in a 0700 directory, and rotated before passing the limit")
    func rotation() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = PushLog(stateDirectory: directory + "/state", limit: 4096)
        let record = PushLog.errorRecord(
            String(repeating: "x", count: 900), exitStatus: 78, at: midnightUTC, messageID: "m1")
        let lineLength = record.serialized().count + 1
        for _ in 0..<4 { try log.append([record]) }
        #expect(try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n").count == 4)
        #expect(!FileManager.default.fileExists(atPath: log.rotatedPath))
        try log.append([record])
        #expect(4 * lineLength <= 4096 && 5 * lineLength > 4096, "the fifth line would pass the limit")
        #expect(try String(contentsOfFile: log.rotatedPath, encoding: .utf8).split(separator: "\n").count == 4)
        let current = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(current.split(separator: "\n").count == 1)
        let parsed = try JSONValue.parse(Data(current.utf8))
        #expect(parsed["outcome"] == "error")
        #expect(parsed["exit_status"] == 78)
        #expect(parsed["message_id"] == "m1")
        #expect(parsed["time"] == "2026-11-23T00:00:00.000Z")
        let attributes = try FileManager.default.attributesOfItem(atPath: log.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(
            (try FileManager.default.attributesOfItem(atPath: directory + "/state")[.posixPermissions] as? Int) == 0o700
        )
    }

    @Test(
        "a push.log planted as a symbolic link by another user is not followed: the append fails, the target is untouched"
    )
    func plantedLink() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = PushLog(stateDirectory: directory + "/state", limit: 4096)
        try FileManager.default.createDirectory(
            atPath: directory + "/state", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let victim = directory + "/victim.txt"
        try "the victim's own text\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: log.path, withDestinationPath: victim)
        let record = PushLog.errorRecord("x", exitStatus: 78, at: midnightUTC, messageID: nil)
        #expect(throws: FileSystemError.self) { try log.append([record]) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "the victim's own text\n")

        try FileManager.default.removeItem(atPath: log.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory + "/state")
        #expect(throws: FileSystemError.self, "a state directory every user can write to is refused") {
            try log.append([record])
        }
        #expect(!FileManager.default.fileExists(atPath: log.path))
    }

    @Test("a delivery report becomes one record per device with masked tokens")
    func reportRecords() throws {
        let target = DeliveryTarget(
            deviceID: "ipad", token: try DeviceToken(validating: String(repeating: "ab", count: 32)),
            recordedEnvironment: nil)
        let report = DeliveryReport.skipped([target], reason: "frequency cap") { _ in .sandbox }
        let records = PushLog.records(of: report, at: midnightUTC, messageID: nil)
        #expect(records.count == 1)
        #expect(records[0]["outcome"] == "skipped")
        #expect(records[0]["reason"] == "frequency cap")
        #expect(records[0]["environment"] == "sandbox")
        #expect(records[0]["token"] == .string(target.token.masked))
        #expect(records[0]["message_id"] == nil)
        #expect(report.exitStatus == .success, "a skip is not a failure")
        #expect(report.summary.hasSuffix("1 skipped in 0.00 s"))
    }
}
