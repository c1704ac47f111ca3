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
import Synchronization

/// The registry a process last read from or wrote to one state file, reused while the file is
/// unchanged (its journal is checked by `StateFileRegistry`), so that a process making many changes (`register-apns serve`) parses the file once
/// rather than on every write batch.
///
/// Shared by every copy of one `StateFileRegistry` value. Only a version 1 file is remembered: a flat
/// map, which another program rewrites in place without the lock, is read every time. A remembered
/// registry is reused only when the file still has the stamp it had (`PosixFile.Stamp`: device,
/// inode, size, modification and status change times in nanoseconds), and for a file of up to a
/// megabyte (the size another program's in-place rewrites reach) the same bytes too. The file
/// remembered is kept open, so its inode number cannot be given to another file while it is.
final class RegistryCache: Sendable {
    /// One remembered version of the file.
    struct Entry: Sendable {
        /// The file's stamp when `devices` was read from it or written to it.
        var stamp: PosixFile.Stamp
        /// The file's bytes, for a file of up to a megabyte (compared whole before reuse).
        var bytes: Data?
        /// The file, held open for as long as it is remembered.
        var file: OpenFile
        /// The registry that file holds, as reading it would give it, with the journal applied.
        var devices: RegisteredDevices
        /// How far the journal beside the file was read; `nil` when there was none.
        var journal: RegistryJournal.Position?
    }

    /// A descriptor closed when the last entry holding it goes.
    final class OpenFile: Sendable {
        let descriptor: Int32

        init?(_ path: String) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            self.descriptor = descriptor
        }

        /// Takes `descriptor` over: it is closed with this value.
        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }
    }

    /// Files up to this size are compared byte for byte before a remembered registry is reused.
    static let comparedBytes = 1 << 20

    private let entry = Mutex<Entry?>(nil)
    /// How many times the file itself was read and parsed through this cache's registry (tests
    /// check that a registry brought up to date from the journal did not).
    let fileReads = Atomic<Int>(0)

    /// An empty cache.
    init() {}

    /// The remembered registry of the file at `path`, when the file is still the one remembered.
    /// The entry stays remembered.
    func current(at path: String) -> Entry? {
        guard let entry = entry.withLock({ $0 }) else { return nil }
        return Self.isCurrent(entry, at: path) ? entry : nil
    }

    /// The remembered entry, taken out whether or not the file is still the one remembered (see
    /// `isCurrent`): a registry that read a journal to its end may take a fold of it as its own.
    func takeAny() -> Entry? {
        entry.withLock { entry -> Entry? in
            defer { entry = nil }
            return entry
        }
    }

    /// The remembered entry, left remembered, whether or not the file is still the one remembered.
    func peekAny() -> Entry? {
        entry.withLock { $0 }
    }

    /// Keeps `kept`, an entry checked against its file by the caller.
    func remember(_ kept: Entry) {
        entry.withLock { $0 = kept }
    }

    /// Remembers `devices` as the contents of the file at `path`, whose stamp is `stamp` and whose
    /// bytes (for a small file) are `bytes`. Nothing is remembered for a registry that is not a
    /// version 1 file, or when the file no longer has that stamp (a registry remembered before
    /// stays: every entry is checked against the file before it is used).
    func remember(
        _ devices: RegisteredDevices, stamp: PosixFile.Stamp?, bytes: Data?, journal: RegistryJournal.Position?,
        at path: String
    ) {
        guard devices.storedFormat == .versioned, let stamp else {
            forget()
            return
        }
        let small = stamp.byteCount <= Self.comparedBytes
        guard !small || bytes?.count == stamp.byteCount, let file = OpenFile(path) else { return }
        // The file opened must be the one stamped: another program may have replaced it since.
        var info = stat()
        guard fstat(file.descriptor, &info) == 0, UInt64(info.st_dev) == stamp.device,
            UInt64(info.st_ino) == stamp.inode, Int64(info.st_size) == stamp.size
        else { return }
        let kept = Entry(stamp: stamp, bytes: small ? bytes : nil, file: file, devices: devices, journal: journal)
        entry.withLock { $0 = kept }
    }

    /// Forgets the remembered registry: the next read parses the file.
    func forget() {
        entry.withLock { $0 = nil }
    }

    /// Whether the file at `path` is still the one `entry` remembers (stamp, and bytes when small).
    static func isCurrent(_ entry: Entry, at path: String) -> Bool {
        guard PosixFile.stamp(of: path) == entry.stamp else { return false }
        guard let bytes = entry.bytes else { return true }
        return (try? PosixFile.readIfPresent(path)) == bytes
    }
}
