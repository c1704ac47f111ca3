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

/// The journal's side of the state file registry (`RegistryJournal` is the journal file itself):
/// when a change is appended instead of rewriting the file, how a remembered registry is brought up
/// to the journal and to another process's fold, reading the file with its journal, and folding.
extension StateFileRegistry {
    /// Folds the journal into the state file: writes the file whole, then removes the journal
    /// (see `RegistryJournal`). Nothing is written when there is no journal.
    /// - Returns: whether there was a journal to fold (one that no longer continued the file is
    ///   removed all the same).
    @discardableResult
    package func foldJournal() throws(RegistryError) -> Bool {
        do {
            return try locked(convertingToVersionOne: false, folding: true) { _ in
                PosixFile.stamp(of: journalPath) != nil
            }
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .io(FileSystemError("cannot fold the journal into", path: path, errno: EIO))
        }
    }

    /// For a process about to append to the journal (`register-apns serve`, at start): reads the
    /// registry now, so that the first batch does not parse the file; and a file large enough to
    /// journal that was never written for a journal (no `journal_base`) is written whole with one,
    /// so that the first batch does not either. A file that cannot be read is left to the first
    /// request that needs it (and `GET /health`) to report.
    package func prepareJournal() {
        let needsBase = { (devices: RegisteredDevices) -> Bool in
            appendsToJournal && devices.storedFormat == .versioned && devices.journalBase == nil
                && (PosixFile.stamp(of: path)?.byteCount ?? 0) >= journalThreshold
        }
        // Read without the lock first: a server that reads a small file creates nothing on disk.
        guard let devices = try? load(), needsBase(devices) else { return }
        _ = try? update { devices in
            // Counted as a change, the registry is written whole, which gives it a journal_base.
            if needsBase(devices) { devices.changeCount += 1 }
        }
    }

    /// Whether the change in `devices` goes to the journal rather than a rewrite of the file: this
    /// value appends, the file is a large enough version 1 file written for a journal, and the
    /// change touches some devices and no top-level member. (A journal grown as large as the file
    /// is folded after the append: a fold stalls the batches behind it for the time a whole write
    /// takes, so folds are kept rare, and a reader parses at most twice the file.)
    func appends(
        _ devices: RegisteredDevices, over snapshot: Snapshot, membersBefore: [String: JSONValue]
    )
        -> Bool
    {
        guard appendsToJournal, devices.storedFormat == .versioned, devices.journalBase != nil,
            let size = snapshot.stamp?.byteCount, size >= journalThreshold, devices.otherFields == membersBefore,
            devices.changedDeviceIDs.count <= max(64, devices.count / 8)
        else { return false }
        return true
    }

    /// Appends the change in `devices` to the journal and remembers the registry as changed.
    /// - Returns: where the journal now ends.
    func appendToJournal(
        _ devices: inout RegisteredDevices, over snapshot: Snapshot
    ) throws(RegistryError) -> RegistryJournal.Position {
        guard let base = devices.journalBase else {
            throw .corruptStateFile(path: path, detail: "no journal_base to append to")
        }
        let batch: [UInt8]
        do throws(JSONSyntaxError) {
            batch = try devices.journalBatch()
        } catch {
            // A record that does not read back as written: the change is not stored.
            throw .corruptStateFile(path: journalPath, detail: error.detail)
        }
        let mode = PosixFile.permissions(of: path) ?? 0o600
        let position = try RegistryJournal.append(
            batch, at: journalPath, base: base, mode: mode, after: snapshot.journal)
        cache.remember(devices, stamp: snapshot.stamp, bytes: snapshot.data, journal: position, at: path)
        return position
    }

    /// Brings a remembered entry up to the file and journal now there, without parsing the file:
    /// - the file unchanged: what was appended to the journal since is applied (a journal made
    ///   since, or one replacing a journal that did not continue the file, from its start);
    /// - the file replaced by a fold of the very journal the entry read (`adoptFold`).
    /// - Returns: `false` when the file must be read (`entry` may then be half brought up).
    func refresh(_ entry: inout RegistryCache.Entry) throws(RegistryError) -> Bool {
        guard RegistryCache.isCurrent(entry, at: path) else { return try adoptFold(&entry) }
        switch RegistryJournal.change(at: journalPath, since: entry.journal) {
        case .unchanged:
            return true
        case .grown:
            guard let position = entry.journal else { return false }
            entry.journal = try RegistryJournal.readMore(after: position, at: journalPath, into: &entry.devices)
            return true
        case .replaced:
            // A journal that continued the file is only ever removed by replacing the file.
            guard entry.journal?.continuesFile != true else { return false }
            entry.journal = try RegistryJournal.read(at: journalPath, into: &entry.devices)
            return true
        }
    }

    /// Takes the file now there as `entry`'s, when another process wrote it by folding the journal
    /// `entry` read, and nothing else (its `journal_folded` names the entry's base and the journal's
    /// end): the rest of that journal is read through the descriptor the entry holds (a removed
    /// journal stays readable while open), then the new journal, if any, is applied. Two servers
    /// on one file then never parse the file again for each other's folds.
    /// - Returns: `false` when the file is something else and must be read.
    func adoptFold(_ entry: inout RegistryCache.Entry) throws(RegistryError) -> Bool {
        guard let position = entry.journal, position.continuesFile, let base = entry.devices.journalBase else {
            return false
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        let file = RegistryCache.OpenFile(descriptor: descriptor)
        guard let markers = RegistryJournal.foldMarkers(ofOpen: descriptor),
            var stamp = PosixFile.stamp(ofOpen: descriptor)
        else { return false }
        entry.journal = try RegistryJournal.readMore(after: position, at: journalPath, into: &entry.devices)
        guard markers.folded == "\(base) \(entry.journal?.end ?? 0)" else { return false }
        var bytes: Data?
        if stamp.byteCount <= RegistryCache.comparedBytes {
            // A small file is compared byte for byte before reuse: its bytes are kept.
            (bytes, stamp) = try RegistryJournal.contents(of: file, from: 0, path: path)
        }
        entry.devices.journalBase = markers.base
        entry.devices.journalFolded = markers.folded
        entry.stamp = stamp
        entry.bytes = bytes
        entry.file = file
        entry.journal = try RegistryJournal.read(at: journalPath, into: &entry.devices)
        return true
    }

    /// Reads and parses the state file and applies the journal beside it (see `RegistryJournal`).
    /// A fold replaces the file before it removes the journal: when a file written for a journal
    /// was replaced while the two were read (the journal read may be the next file's, or none
    /// where the old file's was), both are read again. A file never written for a journal has no
    /// journal to miss.
    func readWithJournal() throws(RegistryError) -> (Snapshot, RegisteredDevices) {
        var attempt = 1
        while true {
            var (snapshot, devices) = try readSettled()
            cache.fileReads.add(1, ordering: .relaxed)
            snapshot.journal = try RegistryJournal.read(at: journalPath, into: &devices)
            if devices.journalBase == nil || PosixFile.stamp(of: path) == snapshot.stamp
                || attempt == Self.maximumAttempts
            {
                return (snapshot, devices)
            }
            attempt += 1
        }
    }
}
