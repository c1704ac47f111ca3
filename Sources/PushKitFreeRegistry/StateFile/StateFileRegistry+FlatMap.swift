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

/// The flat map's side of the state file registry (`RegisteredDevices+FlatMap.swift` is its
/// format): the sidecar `<file>.meta.json` beside it, the pending sidecar, and the order of writes
/// that keeps the two consistent through a failure at any step.
extension StateFileRegistry {
    /// Writes a flat map and its sidecar so that a failure at any step leaves the old registry or
    /// the new one, never a mix: the pending sidecar, then the flat map (the commit), then the
    /// pending sidecar renamed over the sidecar. When the flat map's bytes do not change, the
    /// sidecar alone is replaced (that is the commit).
    /// - Returns: `false` when the file changed before the commit (nothing that counts was written).
    func writeFlatMap(
        _ devices: RegisteredDevices, over snapshot: Snapshot, mode: mode_t,
        committingIf stillCurrent: @escaping () -> Bool
    ) throws(FileSystemError) -> Bool {
        let versionOne = { (output: inout FileOutput) throws(FileSystemError) in
            try devices.writeStateFile(to: &output)
        }
        let flatMap = devices.flatMapBytes()
        PosixFile.removeStaleTemporaries(of: pendingSidecarPath)
        if let original = snapshot.data, original.elementsEqual(flatMap) {
            unlink(pendingSidecarPath)
            return try PosixFile.replaceAtomically(
                sidecarPath, mode: mode, committingIf: stillCurrent, writing: versionOne)
        }
        try PosixFile.replaceAtomically(pendingSidecarPath, mode: mode, writing: versionOne)
        let committed: Bool
        do throws(FileSystemError) {
            committed = try PosixFile.replaceAtomically(path, with: flatMap, mode: mode, committingIf: stillCurrent)
        } catch {
            unlink(pendingSidecarPath)
            throw error
        }
        guard committed else {
            unlink(pendingSidecarPath)
            return false
        }
        // The change is committed: a failure here leaves the pending sidecar, which matches the
        // flat map and so counts, for the next writer to put in place.
        if rename(pendingSidecarPath, sidecarPath) == 0 { PosixFile.syncDirectory(of: sidecarPath) }
        return true
    }

    /// The sidecar and the pending sidecar beside a flat map, as read.
    struct SidecarFiles {
        let sidecar: Data?
        let pending: Data?

        /// The details that go with the flat map `stored`: the pending sidecar when it describes
        /// exactly `stored`'s devices and tokens (its writer replaced the flat map and did not get
        /// to rename it), else the sidecar.
        func details(
            for stored: RegisteredDevices, decode: (Data, String) throws(RegistryError) -> RegisteredDevices
        ) throws(RegistryError) -> Data? {
            guard let pending, stored.storedFormat == .legacyFlatMap || stored.storedFormat == .absent,
                let described = try? decode(pending, ""), described.count == stored.count,
                stored.devices.allSatisfy({ described[$0.id]?.token == $0.record.token })
            else { return sidecar }
            return pending
        }
    }

    func sidecarFiles() throws(RegistryError) -> SidecarFiles {
        SidecarFiles(sidecar: try read(sidecarPath), pending: try read(pendingSidecarPath))
    }

    /// `stored` with the details of the sidecar, when `stored` is a flat map (or empty) and there is one.
    func combined(_ stored: RegisteredDevices, sidecar: Data?) throws(RegistryError) -> RegisteredDevices {
        guard let sidecar, Self.takesSidecar(stored) else { return stored }
        return RegisteredDevices.combining(flatMap: stored, sidecar: try decode(sidecar, path: sidecarPath))
    }

    /// Whether a sidecar's details apply to `stored`: a flat map, or no file yet.
    static func takesSidecar(_ stored: RegisteredDevices) -> Bool {
        stored.storedFormat == .legacyFlatMap || stored.storedFormat == .absent
    }
}
