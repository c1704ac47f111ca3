#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `push.log` in the state directory: what background deliveries (`send-push --detach`, `--hook`)
/// did, one JSON object per line, since they have no terminal to print to.
///
/// The file is created 0600 (its directory 0700) and appended to under an exclusive `flock` on
/// `push.log.lock`. Before a write would take it past `limit` bytes, it is renamed to `push.log.1`
/// (replacing the previous one), so the two files together stay under twice the limit.
package struct PushLog: Sendable {
    /// 1 MiB.
    package static let defaultLimit = NotificationPolicy.defaultLogLimit

    /// The log file.
    package let path: String
    /// Bytes `push.log` may reach before a write rotates it to `push.log.1`.
    package let limit: Int

    /// The log in `stateDirectory`.
    package init(stateDirectory: String, limit: Int = PushLog.defaultLimit) {
        path = stateDirectory + "/push.log"
        self.limit = limit
    }

    /// Where the log is rotated to: `push.log.1`.
    package var rotatedPath: String { path + ".1" }

    /// Appends `records`, one line each, in one write.
    /// - Throws: `FileSystemError` when the directory, lock or file cannot be created or written.
    package func append(_ records: [JSONValue]) throws {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        for record in records {
            bytes += record.serialized()
            bytes.append(0x0a)
        }
        let directory = PosixFile.parentDirectory(of: path)
        try PosixFile.createPrivateDirectory(directory)
        try PosixFile.checkPrivateDirectory(directory)
        try FileLock.withExclusiveLock(at: path + ".lock") { () throws(FileSystemError) in
            var status = stat()
            if stat(path, &status) == 0, Int(status.st_size) > 0, Int(status.st_size) + bytes.count > limit {
                if rename(path, rotatedPath) != 0 {
                    throw FileSystemError("cannot rotate", path: path, errno: errno)
                }
            }
            // Not through a symbolic link: another user who could plant one would choose the file appended to.
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if descriptor < 0 {
                throw FileSystemError("cannot open", path: path, errno: errno, exitStatus: .cannotCreate)
            }
            defer { close(descriptor) }
            var output = FileOutput(descriptor: descriptor, path: path)
            try output.write(bytes)
        }
    }

    /// The common members of every record: `time` (ISO 8601, UTC) and `pid`, plus `message_id`
    /// when the run had one.
    package static func header(at date: Date, messageID: String?) -> [String: JSONValue] {
        var header: [String: JSONValue] = [
            "time": .string(ISO8601Timestamp.format(date)), "pid": .number(Double(getpid())),
        ]
        if let messageID { header["message_id"] = .string(messageID) }
        return header
    }

    /// One record per device of `report` (tokens masked), with the common members.
    package static func records(of report: DeliveryReport, at date: Date, messageID: String?) -> [JSONValue] {
        let header = header(at: date, messageID: messageID)
        return report.results.map { result in
            .object(header.merging(DeliveryReport.members(of: result, fullTokens: false)) { _, member in member })
        }
    }

    /// A record for a run that could not be made: `outcome` "error", the message and exit status.
    package static func errorRecord(
        _ message: String, exitStatus: Int32, at date: Date, messageID: String?
    ) -> JSONValue {
        noteRecord(outcome: "error", message, exitStatus: exitStatus, at: date, messageID: messageID)
    }

    /// A record about the run rather than one device: `outcome` (`error`, `warning`, `no_devices`),
    /// `reason`, and `exit_status` when the run ended with one.
    package static func noteRecord(
        outcome: String, _ message: String, exitStatus: Int32? = nil, at date: Date, messageID: String?
    ) -> JSONValue {
        var record = header(at: date, messageID: messageID)
        record["outcome"] = .string(outcome)
        record["reason"] = .string(message)
        if let exitStatus { record["exit_status"] = .number(Double(exitStatus)) }
        return .object(record)
    }
}
