#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device registry on disk: the one way every tool reads and changes the state file.
///
/// Reads take no lock: the file is only ever replaced whole, so a reader sees the old or the new
/// version. `update` serializes writers across processes: it takes an exclusive `flock` on
/// `<file>.lock`, re-reads the file, applies the change, writes a temporary file beside it, `fsync`s
/// it, renames it over the file and `fsync`s the directory. Two processes writing at once both land
/// their change; a writer killed at any point leaves the old or the new file whole.
///
/// A file that is not a registry is never overwritten (exit 65). A flat map from earlier servers is
/// read as is and upgraded to version 1 on the first write, the original kept as `<file>.v0.bak`.
/// New files and directories are created 0600 and 0700; a replaced file keeps its permissions.
public struct DeviceRegistry: Sendable {
    /// The state file.
    public let path: String
    /// The source of `registered_at`, `last_seen_at` and `last_delivered_at` times.
    public let clock: any WallClock

    /// The registry in the state file at `path` (usually `Configuration.stateFile`), stamping times from `clock`.
    public init(path: String, clock: any WallClock = SystemClock()) {
        self.path = path
        self.clock = clock
    }

    /// The lock file writers hold: `<file>.lock`. Never removed (see `FileLock`).
    public var lockPath: String { path + ".lock" }

    /// Where the flat map is kept when it is upgraded: `<file>.v0.bak`.
    public var legacyBackupPath: String { path + ".v0.bak" }

    // MARK: Reading and writing

    /// The registry as the file holds it now; empty when there is no file.
    /// - Throws: `RegistryError.corruptStateFile` (65) or `.io` (74).
    public func load() throws(RegistryError) -> RegisteredDevices {
        guard let data = try read() else { return RegisteredDevices() }
        return try decode(data)
    }

    /// Changes the registry under the writers' lock and writes it back atomically.
    ///
    /// `body` gets the registry as re-read under the lock. When it throws, or changes nothing, the
    /// file is not written.
    /// - Throws: what `body` throws; `RegistryError` for a corrupt file (65), a file or directory that
    ///   cannot be created (73), and I/O failures (74).
    @discardableResult
    public func update<Result>(_ body: (inout RegisteredDevices) throws -> Result) throws -> Result {
        let directory = PosixFile.parentDirectory(of: path)
        let lock: FileLock
        do throws(FileSystemError) {
            if !directory.isEmpty { try PosixFile.createPrivateDirectory(directory) }
            lock = try FileLock(exclusiveAt: lockPath)
        } catch {
            throw Self.classify(error)
        }
        return try withExtendedLifetime(lock) {
            let original = try read()
            var devices = try original.map(decode) ?? RegisteredDevices()
            let result = try body(&devices)
            guard devices.changeCount > 0 else { return result }
            let mode = PosixFile.permissions(of: path) ?? 0o600
            PosixFile.removeStaleTemporaries(of: path)
            PosixFile.removeStaleTemporaries(of: legacyBackupPath)
            do throws(FileSystemError) {
                if devices.storedFormat == .legacyFlatMap, let original {
                    try PosixFile.replaceAtomically(legacyBackupPath, with: original, mode: mode)
                }
                try PosixFile.replaceAtomically(path, mode: mode) { (output: inout FileOutput) throws(FileSystemError) in
                    try devices.writeStateFile(to: &output)
                }
            } catch {
                throw Self.classify(error)
            }
            return result
        }
    }

    private func read() throws(RegistryError) -> Data? {
        do throws(FileSystemError) {
            // Mapped: the state file is only ever replaced by rename, never rewritten in place.
            return try PosixFile.readIfPresent(path, mapLargeFiles: true)
        } catch {
            throw RegistryError.io(error)
        }
    }

    private func decode(_ data: Data) throws(RegistryError) -> RegisteredDevices {
        do throws(JSONSyntaxError) {
            return try RegisteredDevices(stateFile: data)
        } catch {
            throw RegistryError.corruptStateFile(path: path, detail: error.detail)
        }
    }

    /// Failures to create the directory, lock, temporary or backup file are 73; the rest 74.
    private static func classify(_ error: FileSystemError) -> RegistryError {
        error.exitStatus == .cannotCreate ? .cannotCreate(error) : .io(error)
    }

    // MARK: What the tools ask

    /// Adds or updates devices in one locked write, stamped with the clock's time. All or nothing:
    /// the registrations were validated when they were made.
    @discardableResult
    public func register(_ registrations: [DeviceRegistration]) throws -> [RegisteredDevices.RegistrationOutcome] {
        let now = clock.now()
        return try update { devices in registrations.map { devices.register($0, at: now) } }
    }

    /// Removes the device with id `idOrToken`, or else the devices holding that token.
    /// - Throws: `RegistryError.unknownDevice` (65) when nothing matched; the file is not written.
    @discardableResult
    public func remove(idOrToken: String) throws -> [RegisteredDevice] {
        try update { devices in
            let removed = devices.remove(idOrToken: idOrToken)
            if removed.isEmpty { throw RegistryError.unknownDevice(idOrToken, path: path) }
            return removed
        }
    }

    /// Merges another registry (see `RegisteredDevices.merge(_:)`).
    @discardableResult
    public func merge(_ imported: RegisteredDevices) throws -> RegisteredDevices.ImportSummary {
        try update { devices in devices.merge(imported) }
    }

    /// The devices `selection` addresses, read without locking.
    public func devices(_ selection: DeviceSelection = .all) throws(RegistryError) -> DeviceSelection.Match {
        selection.match(in: try load())
    }

    /// Applies Apple's 410 rule to one device (see `RegisteredDevices.removeIfUnregistered`).
    /// - Returns: `true` when the device was removed.
    @discardableResult
    public func removeIfUnregistered(deviceID: String, token: DeviceToken, unregisteredAt: Date?) throws -> Bool {
        try update { devices in devices.removeIfUnregistered(deviceID: deviceID, token: token, unregisteredAt: unregisteredAt) }
    }

    /// Records the environment a device's token belongs to; no write when it is already known.
    @discardableResult
    public func recordEnvironment(_ environment: APNsEnvironment, deviceID: String, token: DeviceToken) throws -> Bool {
        try update { devices in devices.recordEnvironment(environment, deviceID: deviceID, token: token) }
    }

    /// Sets `last_delivered_at` of a batch of devices to now, in one locked write.
    @discardableResult
    public func recordDelivery(to deviceIDs: [String]) throws -> Int {
        let now = clock.now()
        return try update { devices in devices.recordDelivery(to: deviceIDs, at: now) }
    }
}
