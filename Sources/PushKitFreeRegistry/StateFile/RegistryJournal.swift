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

/// The state file's journal, `<file>.journal`: the changes `register-apns serve` made to a large
/// registry since the file was last written whole.
///
/// Rewriting a file of 100,000 devices (34 MB) and `fsync`ing it takes 50–100 ms on the machines
/// measured; appending a batch's changed records to a journal and `fdatasync`ing it takes well under
/// one. So a writer that asks for it (`StateFileRegistry.appendsToJournal`, which serve sets) appends a
/// batch here instead of rewriting the file when the file is version 1 and at least
/// `StateFileRegistry.journalThreshold` bytes, and the batch changes a few devices and no top-level
/// member. Every other write (any command-line tool, a batch changing many devices, a journal grown
/// to the file's size, serve idle for a second or stopping) folds the journal into the file:
/// the file is written whole with a new `journal_base`, then the journal is removed.
///
/// JSON Lines. The first line names the version of the file the journal continues,
/// `{"journal": 1, "base": "<the file's journal_base>"}`; each further line is one batch,
/// `{"devices": {"<id>": <record>, "<id>": null}}`, records as the file holds them, `null` for a
/// device removed. Batches apply in order, each whole.
/// - A journal whose base is not the file's (left by a writer killed between writing the file and
///   removing the journal, or beside a file another program wrote) is ignored, and replaced by the
///   next writer.
/// - A last line without its newline is a batch whose append never finished, so it was never
///   acknowledged: readers ignore it, the next writer cuts it off.
/// - Any other line that does not parse makes the registry corrupt (65), as a corrupt file does.
enum RegistryJournal {
    /// The journal layout this code reads and writes (the header's `journal`).
    static let formatVersion = 1

    /// How much of one journal file a registry has read.
    struct Position: Sendable {
        /// The journal, held open while remembered, so its inode cannot be given to another file.
        let file: RegistryCache.OpenFile
        /// The journal's stamp when it was last read.
        let stamp: PosixFile.Stamp
        /// The bytes of the complete lines read, header included: where the next batch goes.
        let end: Int
        /// Whether the journal continues the file read (its base is the file's `journal_base`). A
        /// journal that does not was not applied.
        let continuesFile: Bool
    }

    /// How the journal at a path compares with a `Position` read before.
    enum Change {
        /// The same file, as read.
        case unchanged
        /// The same file, with lines appended after what was read (or a cut-off last line replaced).
        case grown
        /// Another file, or none: read it from the start.
        case replaced
    }

    /// How the journal at `path` compares with `position` (`nil`: there was none).
    static func change(at path: String, since position: Position?) -> Change {
        let stamp = PosixFile.stamp(of: path)
        guard let position else { return stamp == nil ? .unchanged : .replaced }
        guard let stamp else { return .replaced }
        if stamp == position.stamp { return .unchanged }
        let sameFile = stamp.device == position.stamp.device && stamp.inode == position.stamp.inode
        return sameFile && position.continuesFile && stamp.byteCount >= position.end ? .grown : .replaced
    }

    /// Reads the journal at `path` and applies its batches to `devices`, read from a file whose
    /// `journal_base` is `devices.journalBase`. Applied batches count as no change.
    /// - Returns: how far it was read; `nil` when there is no journal.
    /// - Throws: `RegistryError.corruptStateFile` for a journal that does not parse, `.io` when it cannot be read.
    static func read(at path: String, into devices: inout RegisteredDevices) throws(RegistryError) -> Position? {
        let descriptor: Int32
        do throws(FileSystemError) {
            // A journal that is there is never taken for none: its batches were acknowledged.
            guard let opened = try PosixFile.openIfPresent(path) else { return nil }
            descriptor = opened
        } catch {
            throw .io(error)
        }
        let file = RegistryCache.OpenFile(descriptor: descriptor)
        let (data, stamp) = try contents(of: file, from: 0, path: path)
        let headerEnd = data.firstIndex(of: UInt8(ascii: "\n")).map { $0 - data.startIndex + 1 }
        guard let headerEnd else {
            // Journals are created whole with their header (renamed into place): this is no journal.
            throw .corruptStateFile(path: path, detail: "line 1: the journal's header line is missing or cut off")
        }
        let base = try header(data.prefix(headerEnd), path: path)
        guard let base, base == devices.journalBase else {
            return Position(file: file, stamp: stamp, end: headerEnd, continuesFile: false)
        }
        let end = try apply(data, from: headerEnd, firstLine: 2, into: &devices, path: path)
        return Position(file: file, stamp: stamp, end: end, continuesFile: true)
    }

    /// Reads what was appended to the journal since `position` and applies it to `devices`.
    static func readMore(
        after position: Position, at path: String, into devices: inout RegisteredDevices
    ) throws(RegistryError) -> Position {
        let (data, stamp) = try contents(of: position.file, from: position.end, path: path)
        // Line numbers in messages count from the start of the file only on a full read.
        let end = try apply(data, from: 0, firstLine: nil, into: &devices, path: path)
        return Position(file: position.file, stamp: stamp, end: position.end + end, continuesFile: true)
    }

    /// Appends one batch (`line`, from `RegisteredDevices.journalBatch()`) and syncs it. When there
    /// is no journal continuing the file (`position` is `nil` or does not continue it), a new one is
    /// made first (permissions `mode`, the state file's), with a header naming `base`, and put in
    /// place whole.
    /// Call only under the writers' lock.
    /// - Returns: the journal's position after the batch.
    static func append(
        _ line: [UInt8], at path: String, base: String, mode: mode_t, after position: Position?
    ) throws(RegistryError) -> Position {
        var end = 0
        if let position, position.continuesFile {
            end = position.end
        } else {
            var header = JSONWriter(capacity: 128)
            header.bytes += Array("{\"journal\": \(formatVersion), \"base\": ".utf8)
            header.string(base)
            header.raw("}\n")
            PosixFile.removeStaleTemporaries(of: path)
            do throws(FileSystemError) {
                try PosixFile.replaceAtomically(path, with: header.bytes, mode: mode)
            } catch {
                throw .io(error)
            }
            end = header.bytes.count
        }
        // Read and write: the descriptor that wrote the batch is the one the position keeps, so
        // nothing can fail between the batch being synced (acknowledged) and the answer.
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 { throw .io(FileSystemError("cannot open", path: path, errno: errno)) }
        let file = RegistryCache.OpenFile(descriptor: descriptor)
        // A batch whose append was cut off (its writer killed) is not part of the journal.
        var failure: FileSystemError?
        var info = stat()
        if fstat(descriptor, &info) == 0, Int(info.st_size) > end, ftruncate(descriptor, off_t(end)) != 0 {
            failure = FileSystemError("cannot truncate", path: path, errno: errno)
        }
        var written = 0
        while failure == nil, written < line.count {
            let count = line.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(end + written))
            }
            if count < 0 {
                if errno == EINTR { continue }
                failure = FileSystemError("cannot write", path: path, errno: errno)
            } else {
                written += count
            }
        }
        if failure == nil, fdatasync(descriptor) != 0 {
            failure = FileSystemError("cannot sync", path: path, errno: errno)
        }
        if let failure {
            // Not acknowledged, so not in the journal: what was written of it is cut off again.
            _ = ftruncate(descriptor, off_t(end))
            throw .io(failure)
        }
        guard let stamp = PosixFile.stamp(ofOpen: descriptor) else {
            // fstat of an open descriptor does not fail; were it to, the batch would still be stored.
            throw .io(FileSystemError("cannot examine", path: path, errno: errno))
        }
        return Position(file: file, stamp: stamp, end: end + line.count, continuesFile: true)
    }

    /// What `StateFileRegistry` appends to the state file's path to name its journal.
    static let journalSuffix = ".journal"

    /// A new `journal_base`: the time and 64 random bits. Not hex only, so that a release that
    /// predates the journal, reading it as an unknown top-level member, never takes it for a token.
    static func newBase(at now: Date = Date()) -> String {
        let random = UInt64.random(in: 0...UInt64.max)
        let hex = String(random, radix: 16)
        return "v1-" + ISO8601Timestamp.format(now) + "-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: Reading

    /// The base named by a header line; `nil` for a header of another layout version is an error.
    private static func header(_ line: Data, path: String) throws(RegistryError) -> String? {
        guard case .object(let members)? = try? JSONValue.parse(line) else {
            throw .corruptStateFile(path: path, detail: "line 1: the journal's header is not a JSON object")
        }
        guard case .number(let version)? = members["journal"], case .string(let base)? = members["base"] else {
            throw .corruptStateFile(path: path, detail: "line 1: the journal's header lacks \"journal\" or \"base\"")
        }
        guard version == Double(formatVersion) else {
            throw .corruptStateFile(
                path: path,
                detail:
                    "line 1: journal version \(version) is not supported: this release reads version \(formatVersion)")
        }
        return base
    }

    /// Applies the complete lines of `data` from `start` to `devices`, as no change.
    /// - Returns: the offset just past the last complete line.
    private static func apply(
        _ data: Data, from start: Int, firstLine: Int?, into devices: inout RegisteredDevices, path: String
    ) throws(RegistryError) -> Int {
        var lineStart = start
        var lineNumber = firstLine
        let bytes = data[data.startIndex...]
        while let newline = bytes[(data.startIndex + lineStart)...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = data[(data.startIndex + lineStart)..<newline]
            do throws(JSONSyntaxError) {
                try applyBatch(line, to: &devices)
            } catch {
                let place = lineNumber.map { "line \($0)" } ?? "a batch appended at byte \(lineStart)"
                throw .corruptStateFile(path: path, detail: "\(place): \(error.detail)")
            }
            lineStart = newline - data.startIndex + 1
            lineNumber = lineNumber.map { $0 + 1 }
        }
        devices.markUnchanged()
        return lineStart
    }

    /// Applies one batch line, `{"devices": {"<id>": <record> or null, ...}}`.
    private static func applyBatch(_ line: Data, to devices: inout RegisteredDevices) throws(JSONSyntaxError) {
        var changes: [(id: String, device: RegisteredDevice?)] = []
        try JSONScanner.withScanner(over: line) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
            guard try scanner.peekKind() == .object, try scanner.beginObject() else {
                throw scanner.failure("expected a batch {\"devices\": {...}}")
            }
            repeat {
                let key = try scanner.readMemberName()
                guard key == "devices", try scanner.peekKind() == .object else {
                    throw scanner.failure("expected only \"devices\", an object, in a batch")
                }
                guard try scanner.beginObject(depth: 1) else { continue }
                repeat {
                    scanner.skipWhitespace()
                    let id = try scanner.readMemberName()
                    if id.isEmpty { throw scanner.failure("a device id must not be empty") }
                    scanner.skipWhitespace()
                    if scanner.consumeNull() {
                        changes.append((id, nil))
                        continue
                    }
                    let valueStart = scanner.offset
                    var device = try DeviceRecord.read(from: &scanner, deviceID: id)
                    device.storedJSON = line[line.startIndex + valueStart..<line.startIndex + scanner.offset]
                    changes.append((id, device))
                } while try scanner.nextMember()
            } while try scanner.nextMember()
            try scanner.expectEnd()
        }
        for change in changes { devices.store(change.device, as: change.id) }
    }

    /// The `journal_base` and `journal_folded` members a state file written for a journal has
    /// before its `devices`, read from its first 4 KB without parsing the devices; `nil` when the
    /// file does not start with both.
    static func foldMarkers(ofOpen descriptor: Int32) -> (base: String, folded: String)? {
        var prefix = Data(count: 4096)
        let count = prefix.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, 0) }
        guard count > 0 else { return nil }
        prefix.count = count
        let found = try? JSONScanner.withScanner(over: prefix) {
            (scanner: inout JSONScanner) throws(JSONSyntaxError) -> (String?, String?) in
            var base: String?
            var folded: String?
            guard try scanner.peekKind() == .object, try scanner.beginObject() else { return (nil, nil) }
            repeat {
                switch try scanner.readMemberName() {
                case "devices": return (base, folded)
                case RegisteredDevices.journalBaseMember: base = try scanner.readString()
                case RegisteredDevices.journalFoldedMember: folded = try scanner.readString()
                default: _ = try scanner.readValue(depth: 1)
                }
            } while try scanner.nextMember()
            return (base, folded)
        }
        guard let (base, folded) = found, let base, let folded else { return nil }
        return (base, folded)
    }

    /// Everything in `file` from `offset` to its end, and the file's stamp after reading.
    static func contents(
        of file: RegistryCache.OpenFile, from offset: Int, path: String
    ) throws(RegistryError) -> (Data, PosixFile.Stamp) {
        let data: Data
        do throws(FileSystemError) {
            data = try PosixFile.contents(ofOpen: file.descriptor, from: offset, path: path)
        } catch {
            throw .io(error)
        }
        guard let stamp = PosixFile.stamp(ofOpen: file.descriptor) else {
            throw .io(FileSystemError("cannot examine", path: path, errno: errno))
        }
        // Appended to while read: the stamp must describe no more than what was read, or the next
        // look would take the rest as read. Claiming less only makes the next look read again.
        let end = offset + data.count
        return (data, stamp.byteCount == end ? stamp : stamp.truncated(to: end))
    }
}
