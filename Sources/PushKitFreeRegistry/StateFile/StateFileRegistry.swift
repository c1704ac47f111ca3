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

/// The device registry in a JSON state file, the file's `RegistryStore` (as `PostgresRegistry` is
/// PostgreSQL's): the one way every tool reads and changes the state file.
///
/// Reads take no lock: the tools only ever replace the file whole, so a reader sees the old or the
/// new version. `update` serializes writers across processes: it takes an exclusive `flock` on
/// `<file>.lock`, re-reads the file, applies the change, writes a temporary file beside it, `fsync`s
/// it, renames it over the file and `fsync`s the directory. Two processes writing at once both land
/// their change; a writer killed at any point leaves the old or the new file whole.
///
/// A flat map `{"<device id>": "<token>"}` (what the server these tools replace writes, with no
/// lock, truncating the file and writing it in place) stays a flat map, so that server and its own
/// readers keep working; what it cannot hold goes to the sidecar `<file>.meta.json` (see
/// `RegisteredDevices+FlatMap.swift`). A change is written as `<file>.meta.json.pending`, then the
/// flat map, then the pending sidecar is renamed over the sidecar: a pending sidecar counts only
/// while it describes exactly the flat map's devices and tokens, so a change whose flat map was
/// not written (a failed rename, a full disk, a kill) leaves nothing of it, and one whose flat map
/// was written is whole even if the last rename fails. Registrations
/// that server adds beside `version` and `devices` of a version 1 file are adopted, and that file is
/// written back as a flat map. Against that server's writes:
/// - contents read empty or unparseable from a file modified in the last two seconds are read again
///   (for up to half a second) before they count, so a rewrite caught half way neither fails a
///   reader nor becomes a write that drops every device;
/// - just before the rename the file is compared with what was read (bytes for files up to a
///   megabyte, else inode, size and time); when it changed, the change is applied again to the new
///   contents, up to 20 times (then exit 75, the file left as it was);
/// - the replaced file is kept open across the rename and read again: registrations written into it
///   between that comparison and the rename are adopted into the new file.
/// What remains: such a write that takes over half a second is lost, as is one into a file over a
/// megabyte; a rewrite based on a read made before our rename puts back a device the tools removed
/// (it is pruned again on its next 410) and drops one they added from the flat map (the sidecar
/// still holds it, and the next write puts it back). `convertToVersionOne()` ends all this when that
/// server is retired.
///
/// A file that is not a registry is never overwritten (exit 65).
/// New files and directories are created 0600 and 0700; a replaced file keeps its permissions.
///
/// One value (and its copies) remembers the version 1 registry it last read or wrote and reuses it
/// while the file is unchanged (see `RegistryCache`), so a process that writes many batches parses
/// the file once; it is re-read whenever another process or program changed it. A remembered
/// registry also keeps an index of its tokens.
///
/// A value with `appendsToJournal` set (`register-apns serve`) writes a large file's changes to a
/// journal beside it, `<file>.journal`, instead of rewriting the file for each batch, and folds the
/// journal into the file from time to time; every reader applies the journal (see `RegistryJournal`).
/// Every other value writes the file whole and `fsync`s it on every change, folding in any journal.
///
/// This file holds reading, the lock and the write; `StateFileRegistry+Journal.swift` the journal's
/// side, `StateFileRegistry+FlatMap.swift` the flat map's sidecar.
package struct StateFileRegistry: Sendable {
    /// The state file.
    package let path: String
    /// The source of `registered_at`, `last_seen_at` and `last_delivered_at` times.
    package let clock: any WallClock

    /// The registry in the state file at `path` (usually `Configuration.stateFile`), stamping times from `clock`.
    package init(path: String, clock: any WallClock = SystemClock()) {
        self.path = path
        self.clock = clock
    }

    /// The lock file writers hold: `<file>.lock`. Never removed (see `FileLock`).
    package var lockPath: String { path + ".lock" }

    /// Where the flat map is kept when it is converted to version 1: `<file>.v0.bak`.
    package var legacyBackupPath: String { path + ".v0.bak" }

    /// Beside a flat map, what it cannot hold: `<file>.meta.json`, a version 1 registry of the same
    /// devices (environments, names, groups, times, top-level members). Ignored beside a version 1 file.
    package var sidecarPath: String { path + ".meta.json" }

    /// Beside a flat map, a change's sidecar before its flat map is written: `<file>.meta.json.pending`
    /// (see the type's comment).
    package var pendingSidecarPath: String { sidecarPath + ".pending" }

    /// How often `update` applies its change again when another program keeps rewriting the file.
    static let maximumAttempts = 20

    /// Called by a writer just after its last look at the file and before its rename (tests play
    /// another program's write in that window with it).
    var afterLastLook: (@Sendable () -> Void)?

    /// Which setting chose the path, for a message about a directory that cannot be made or used,
    /// e.g. "the devices file, in the state directory from PUSHKIT_STATE_DIR"; `nil` says nothing.
    package var origin: String?

    /// The registry last read or written through this value or a copy of it.
    let cache = RegistryCache()

    /// Whether changes go to the journal when they can (see `RegistryJournal`): for a process that
    /// writes many batches and folds the journal when idle or stopping (`register-apns serve`).
    package var appendsToJournal = false
    /// The smallest state file whose changes a journaling value appends rather than rewrites
    /// (`RegistryTuning.journalThreshold`).
    package var journalThreshold = RegistryTuning.defaults.journalThreshold

    /// The journal beside the state file: `<file>.journal` (see `RegistryJournal`).
    package var journalPath: String { path + RegistryJournal.journalSuffix }

    // MARK: Reading and writing

    /// The registry as the file (and, beside a flat map, its sidecar) holds it now; empty when there is no file.
    /// - Throws: `RegistryError.unsafeLocation` (78) for a directory others can write to (see
    ///   `checkReadableDirectory`), `.corruptStateFile` (65) or `.io` (74).
    package func load() throws(RegistryError) -> RegisteredDevices {
        try checkReadableDirectory()
        if var entry = cache.peekAny(), try refresh(&entry) {
            cache.remember(entry)
            return entry.devices
        }
        let (snapshot, devices) = try readWithJournal()
        // A version 1 file has no sidecar: no look for one on every read.
        guard Self.takesSidecar(devices) else {
            remember(devices, as: snapshot)
            return devices
        }
        return try combined(devices, sidecar: try sidecarFiles().details(for: devices, decode: decode))
    }

    /// Refuses to read the registry from a directory another user can write to, by the rule that
    /// refuses to write there (`PosixFile.unsafeDirectoryProblem`): a devices file planted there
    /// would have every send deliver to its tokens. Missing directories pass (there is no registry).
    /// - Throws: `RegistryError.unsafeLocation` (78), naming the directory and the `chmod` that fixes it.
    func checkReadableDirectory() throws(RegistryError) {
        let directory = PosixFile.parentDirectory(of: path)
        guard let problem = PosixFile.unsafeDirectoryProblem(directory) else { return }
        let error = FileSystemError(
            refusing: problem, path: directory.isEmpty ? "." : directory, action: "refusing to read the registry in")
        throw .unsafeLocation(origin.map { error.adding($0) } ?? error)
    }

    /// Changes the registry under the writers' lock and writes it back atomically.
    ///
    /// `body` gets the registry as re-read under the lock. When it throws, or changes nothing, the
    /// file is not written. When a program that takes no lock rewrote the file meanwhile, `body` runs
    /// again on the new contents (so it must only change `devices` and its own results).
    /// - Throws: what `body` throws; `RegistryError` for a corrupt file (65), a file or directory that
    ///   cannot be created (73), I/O failures (74), and a file rewritten by another program at every
    ///   attempt (75).
    @discardableResult
    package func update<Result>(_ body: (inout RegisteredDevices) throws -> Result) throws -> Result {
        try locked(convertingToVersionOne: false, body)
    }

    /// Writes a flat map and its sidecar as one version 1 file, for when the server that writes the
    /// flat map is retired (it would otherwise write its registrations beside `version`; they are
    /// still adopted, and the file goes back to a flat map). The flat map is kept as `<file>.v0.bak`
    /// and the sidecar removed.
    /// - Returns: the number of devices converted; `nil` when the file is not a flat map (nothing written).
    @discardableResult
    package func convertToVersionOne() throws -> Int? {
        try locked(convertingToVersionOne: true) { devices in devices.writesFlatMap ? devices.count : nil }
    }

    /// Whether a whole state file (and its journal) can be written now: allocates that much room in
    /// a temporary file beside it and removes it, writing no data. For a health check that saw a
    /// write refused (a full disk) and must notice when writing works again.
    /// - Throws: `RegistryError.cannotCreate` (73) or `.io` (74) naming what the file system refused.
    package func checkWritable() throws(RegistryError) {
        let size = (PosixFile.stamp(of: path)?.byteCount ?? 0) + (PosixFile.stamp(of: journalPath)?.byteCount ?? 0)
        do throws(FileSystemError) {
            try PosixFile.checkRoom(beside: path, bytes: max(size, 4096))
        } catch {
            throw Self.classify(error)
        }
    }

    func locked<Result>(
        convertingToVersionOne converting: Bool, folding: Bool = false,
        _ body: (inout RegisteredDevices) throws -> Result
    ) throws -> Result {
        let directory = PosixFile.parentDirectory(of: path)
        let lock: FileLock
        do throws(FileSystemError) {
            do throws(FileSystemError) {
                if !directory.isEmpty { try PosixFile.createPrivateDirectory(directory) }
                try PosixFile.checkPrivateDirectory(directory)
            } catch {
                throw origin.map { error.adding($0) } ?? error
            }
            lock = try FileLock(exclusiveAt: lockPath)
        } catch {
            throw Self.classify(error)
        }
        return try withExtendedLifetime(lock) {
            var (result, late) = try commit(convertingToVersionOne: converting, folding: folding, lock: lock, body)
            // Registrations another program wrote into the file just replaced, after the last look
            // at it: adopted into the new file, by the same rule as entries found beside "version".
            var rounds = 0
            while !late.isEmpty, rounds < Self.maximumAttempts {
                rounds += 1
                let entries = late
                do {
                    (_, late) = try commit(convertingToVersionOne: false, lock: lock) { devices in
                        if devices.storedFormat == .versioned { devices.storedFormat = .versionedWithLegacyEntries }
                        for (id, token) in entries { devices.adoptLegacyEntry(deviceID: id, token: token) }
                    }
                } catch {
                    // `body`'s change is committed: a failure to adopt another program's late
                    // writes must not report it as failed.
                    break
                }
            }
            return result
        }
    }

    /// One change under the lock: read, apply, write, again while another program rewrites the file.
    /// - Returns: `body`'s result, and the registrations another program wrote into the replaced file.
    private func commit<Result>(
        convertingToVersionOne converting: Bool, folding: Bool = false, lock: FileLock,
        _ body: (inout RegisteredDevices) throws -> Result
    ) throws -> (Result, [(String, DeviceToken)]) {
        // Only writers holding the lock change the sidecar: read once, it stays as read.
        var sidecars = try sidecarFiles()
        for attempt in 1...Self.maximumAttempts {
            var devices = RegisteredDevices()
            let snapshot = try readForChange(into: &devices)
            try refuseEmptied(devices, read: snapshot, lock: lock)
            // What was read, for telling another program's late writes from it (small files only).
            let stored = (snapshot.data?.count ?? .max) <= RegistryCache.comparedBytes ? devices : RegisteredDevices()
            if devices.storedFormat == .absent, snapshot.data == nil, SvenFiles.createsFlatMap(path) {
                // No file yet where the Sven design's old script reads a flat map: create one.
                devices.storedFormat = .legacyFlatMap
            }
            let details = try sidecars.details(for: devices, decode: decode)
            if details != nil, details == sidecars.pending {
                // The last writer's change, committed but not put in place: put it in place before
                // a new pending sidecar can replace it.
                guard rename(pendingSidecarPath, sidecarPath) == 0 else {
                    throw RegistryError.io(FileSystemError("cannot replace", path: sidecarPath, errno: errno))
                }
                PosixFile.syncDirectory(of: sidecarPath)
                sidecars = SidecarFiles(sidecar: details, pending: nil)
            }
            devices = try combined(devices, sidecar: details)
            let membersBefore = devices.otherFields
            let result: Result
            do {
                result = try body(&devices)
            } catch {
                if devices.changeCount == 0 { remember(devices, as: snapshot) }
                throw error
            }
            let converts = converting && devices.writesFlatMap
            let journal = PosixFile.stamp(of: journalPath) != nil
            if journal, snapshot.journal == nil {
                // Only writers holding the lock make a journal: one there now was there when the
                // registry was read, so it was not read. Folding or replacing it would lose batches.
                throw RegistryError.io(
                    FileSystemError(
                        "cannot read", path: journalPath, errno: EIO, detail: "it is there but was not read"))
            }
            guard devices.changeCount > 0 || converts || (folding && journal) else {
                remember(devices, as: snapshot)
                return (result, [])
            }
            if !folding, !converts, appends(devices, over: snapshot, membersBefore: membersBefore) {
                let position = try appendToJournal(&devices, over: snapshot)
                // Grown as large as the file: folded now, in the same hold of the lock, with nothing
                // else in the fold. The batch is committed either way: a fold that fails leaves the
                // journal to the next one.
                if let size = snapshot.stamp?.byteCount, position.end >= max(journalThreshold, size) {
                    _ = try? commit(convertingToVersionOne: false, folding: true, lock: lock) { _ in }
                }
                return (result, [])
            }
            // Folding alone (no change besides): the file written is the file read with its journal
            // through `end` applied, which a reader that got that far can take without reading it.
            let folded =
                folding && devices.changeCount == 0 && snapshot.journal?.continuesFile == true
                ? devices.journalBase.map { "\($0) \(snapshot.journal?.end ?? 0)" } : nil
            let flat = devices.writesFlatMap && !converts
            if devices.writesFlatMap || converts {
                devices.journalBase = nil
            } else if journal
                || (appendsToJournal && devices.journalBase == nil
                    && snapshot.stamp?.byteCount ?? 0 >= journalThreshold)
            {
                // A new version of the file for a journal to continue: the journal folded in (or
                // one that did not continue the file) can never apply to it.
                devices.journalBase = RegistryJournal.newBase()
            }
            devices.journalFolded = folded
            // A flat map holds only tokens, and its sidecar only what the flat map holds: a record
            // that cannot be read would be lost.
            if flat, let unreadable = devices.unreadableDevices.first {
                throw RegistryError.unreadableRecord(unreadable)
            }
            if let late = try write(devices, over: snapshot, read: stored, asFlatMap: flat) {
                lock.record(Self.heldRecord(devices.count))
                if journal { unlink(journalPath) }
                if converts {
                    unlink(sidecarPath)
                    unlink(pendingSidecarPath)
                }
                if flat || converts { cache.forget() } else { rememberWritten(&devices) }
                return (result, late)
            }
            if attempt == Self.maximumAttempts { break }
            // Let a writer busy rewriting the file finish; a little longer each time (190 ms in all).
            usleep(UInt32(attempt) * 1_000)
        }
        throw RegistryError.keptChanging(path: path)
    }

    /// What the lock file records after a writer replaced the state file: how many devices it held.
    static func heldRecord(_ count: Int) -> String { "devices \(count)" }

    /// Refuses to write over a state file that reads empty although it held devices when these
    /// tools last wrote it (the lock file says how many): a program rewriting it in place
    /// (`slow-command > devices.json`, a script's `write_text`) has truncated it and not yet written
    /// it again, and a rename now would throw that program's contents away with the inode it
    /// writes to. An empty file never written by these tools still counts as an empty registry.
    private func refuseEmptied(
        _ devices: RegisteredDevices, read snapshot: Snapshot, lock: FileLock
    ) throws(RegistryError) {
        guard snapshot.data != nil, devices.storedFormat == .absent, let line = lock.recordedLine(),
            line.hasPrefix("devices "), let held = Int(line.dropFirst("devices ".count)), held > 0
        else { return }
        throw .emptiedInPlace(path: path, heldDevices: held)
    }

    /// One reading of the state file, to notice another program's rewrite before replacing it.
    struct Snapshot {
        /// The bytes read; for a remembered registry, only those of a file up to a megabyte.
        let data: Data?
        let stamp: PosixFile.Stamp?
        /// How far the journal was read with it; `nil` when there was none.
        var journal: RegistryJournal.Position?
    }

    /// The registry to change, with the snapshot it came from: the one remembered, brought up to
    /// date (`refresh`; taken out of the cache while it is changed, and given a token index, as it
    /// will take many changes), else the file read.
    private func readForChange(into devices: inout RegisteredDevices) throws(RegistryError) -> Snapshot {
        guard var entry = cache.takeAny(), try refresh(&entry) else {
            let snapshot: Snapshot
            (snapshot, devices) = try readWithJournal()
            return snapshot
        }
        let snapshot = Snapshot(data: entry.bytes, stamp: entry.stamp, journal: entry.journal)
        // Moved out, so the registry has one owner and is changed without a copy.
        devices = entry.devices
        entry.devices = RegisteredDevices()
        devices.indexesTokens = true
        return snapshot
    }

    /// Remembers an unchanged registry as the contents of the file (and journal) `snapshot` read.
    private func remember(_ devices: RegisteredDevices, as snapshot: Snapshot) {
        cache.remember(devices, stamp: snapshot.stamp, bytes: snapshot.data, journal: snapshot.journal, at: path)
    }

    /// Remembers the registry just written as version 1 as it now is in the file: changed records
    /// encoded and read back (so times have the file's millisecond precision), no changes counted.
    private func rememberWritten(_ devices: inout RegisteredDevices) {
        guard (try? devices.adoptWrittenRecords()) != nil, let stamp = PosixFile.stamp(of: path) else {
            cache.forget()
            return
        }
        let bytes = stamp.byteCount <= RegistryCache.comparedBytes ? Data(devices.stateFileBytes()) : nil
        cache.remember(devices, stamp: stamp, bytes: bytes, journal: nil, at: path)
    }

    /// Writes `devices` (a flat map with the sidecar just before it, or version 1), unless the file
    /// is no longer what `snapshot` read (`stored`). When converting, the flat map read is kept as `.v0.bak`.
    /// - Returns: `nil` when the file changed and nothing but the sidecar was written; else the
    ///   registrations another program wrote into the replaced file after the last look at it.
    private func write(
        _ devices: RegisteredDevices, over snapshot: Snapshot, read stored: RegisteredDevices, asFlatMap: Bool
    ) throws(RegistryError) -> [(String, DeviceToken)]? {
        let mode = PosixFile.permissions(of: path) ?? 0o600
        PosixFile.removeStaleTemporaries(of: path)
        PosixFile.removeStaleTemporaries(of: sidecarPath)
        PosixFile.removeStaleTemporaries(of: legacyBackupPath)
        // The file being replaced, kept open across the rename to see what is written into it late.
        var replaced: Int32 = -1
        defer { if replaced >= 0 { close(replaced) } }
        let stillCurrent = { () -> Bool in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard isUnchanged(since: snapshot) else {
                if descriptor >= 0 { close(descriptor) }
                return false
            }
            replaced = descriptor
            afterLastLook?()
            return true
        }
        let committed: Bool
        do throws(FileSystemError) {
            let versionOne = { (output: inout FileOutput) throws(FileSystemError) in
                try devices.writeStateFile(to: &output)
            }
            if asFlatMap {
                committed = try writeFlatMap(devices, over: snapshot, mode: mode, committingIf: stillCurrent)
            } else {
                if devices.storedFormat == .legacyFlatMap, let original = snapshot.data {
                    try PosixFile.replaceAtomically(legacyBackupPath, with: original, mode: mode)
                }
                committed = try PosixFile.replaceAtomically(
                    path, mode: mode, committingIf: stillCurrent, writing: versionOne)
            }
        } catch {
            throw Self.classify(error)
        }
        guard committed else { return nil }
        guard replaced >= 0, let original = snapshot.data, original.count <= 1 << 20 else { return [] }
        return lateRegistrations(in: replaced, over: original, read: stored)
    }

    /// The registrations another program (which opened the file before our rename) wrote into the
    /// file we replaced: entries whose token differs from what we read. Waits up to half a second
    /// for a rewrite caught half way.
    private func lateRegistrations(
        in descriptor: Int32, over original: Data, read stored: RegisteredDevices
    ) -> [(String, DeviceToken)] {
        let started = ContinuousClock.now
        while true {
            let data = try? PosixFile.contents(ofOpen: descriptor, path: path)
            if data == original { return [] }
            if let data, let late = try? RegisteredDevices(stateFile: data), late.storedFormat != .absent {
                let adopted = Set(late.adoptedLegacyEntries)
                return late.devices.compactMap { device in
                    guard late.storedFormat == .legacyFlatMap || adopted.contains(device.id),
                        stored[device.id]?.token != device.record.token
                    else { return nil }
                    return (device.id, device.record.token)
                }
            }
            if ContinuousClock.now - started > .milliseconds(500) { return [] }
            usleep(2_000)
        }
    }

    /// Whether the file is still what `snapshot` read: the same bytes (for files up to a megabyte,
    /// all another program's flat maps), else the same inode, size and modification time.
    private func isUnchanged(since snapshot: Snapshot) -> Bool {
        guard PosixFile.stamp(of: path) == snapshot.stamp else { return false }
        guard let data = snapshot.data, data.count <= 1 << 20 else { return true }
        return (try? PosixFile.readIfPresent(path)) == data
    }

    /// Reads and parses the state file, waiting out another program's rewrite in place.
    ///
    /// A program that truncates the file and writes it again (Python's `write_text`) can be caught
    /// with the file empty or half written. Contents that are empty or do not parse, in a file
    /// modified in the last two seconds, are read again every 2 ms for up to half a second; then an
    /// empty file counts as empty and a corrupt one as corrupt.
    func readSettled() throws(RegistryError) -> (Snapshot, RegisteredDevices) {
        let started = ContinuousClock.now
        while true {
            let stamp = PosixFile.stamp(of: path)
            let data = try read(path)
            var devices = RegisteredDevices()
            var failure: RegistryError?
            if let data {
                do throws(RegistryError) {
                    devices = try decode(data, path: path)
                } catch {
                    failure = error
                }
            }
            let unsettled = data != nil && (failure != nil || devices.storedFormat == .absent)
            if unsettled, let stamp, Date().timeIntervalSince1970 - stamp.modifiedAt < 2,
                ContinuousClock.now - started < .milliseconds(500)
            {
                usleep(2_000)
                continue
            }
            if let failure { throw failure }
            return (Snapshot(data: data, stamp: stamp), devices)
        }
    }

    func read(_ file: String) throws(RegistryError) -> Data? {
        do throws(FileSystemError) {
            // Mapped when large: only a version 1 file grows that large, and only these tools,
            // which replace it by rename, write one.
            return try PosixFile.readIfPresent(file, mapLargeFiles: true)
        } catch {
            throw RegistryError.io(error)
        }
    }

    /// Parses `data`, read from `path`; a record that cannot be used is warned about
    /// (`RegistryWarnings`) and kept.
    func decode(_ data: Data, path: String) throws(RegistryError) -> RegisteredDevices {
        let devices: RegisteredDevices
        do throws(JSONSyntaxError) {
            devices = try RegisteredDevices(stateFile: data)
        } catch {
            throw RegistryError.corruptStateFile(path: path, detail: error.detail)
        }
        RegistryWarnings.warn(about: devices.unreadableDevices, in: path)
        return devices
    }

    /// Failures to create the directory, lock, temporary or backup file are 73; an unsafe
    /// directory 78; the rest 74.
    private static func classify(_ error: FileSystemError) -> RegistryError {
        switch error.exitStatus {
        case .cannotCreate: .cannotCreate(error)
        case .configuration: .unsafeLocation(error)
        default: .io(error)
        }
    }
}
