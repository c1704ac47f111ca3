#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

extension FuzzTarget {
    /// The state file as `StateFileRegistry` reads it, and a file to import as `register-apns import`
    /// reads it. What is read is written and read again: the same registry, the same bytes.
    static func checkStateFile(_ input: [UInt8]) throws(FuzzViolation) {
        let data = Data(input)
        let registry: RegisteredDevices?
        do throws(JSONSyntaxError) {
            registry = try RegisteredDevices(stateFile: data)
        } catch {
            try FuzzViolation.requireMessage(error.detail, from: "the state file reader")
            registry = nil
        }
        if let registry { try requireRoundTrip(registry, "state file", exact: true) }
        if let registry, registry.writesFlatMap { try requireFlatMapRoundTrip(registry) }

        let imported: RegisteredDevices
        do throws(JSONSyntaxError) {
            imported = try RegisteredDevices(importing: data)
        } catch {
            try FuzzViolation.requireMessage(error.detail, from: "the import reader")
            return
        }
        // `list --json` prints JSON Lines that `import` reads back; a second pass is stable.
        let lines = DeviceListing.jsonLines(imported.devices)
        let reimported: RegisteredDevices
        do throws(JSONSyntaxError) {
            reimported = try RegisteredDevices(importing: Data(lines))
        } catch {
            throw FuzzViolation("list --json output does not import: \(error.detail)")
        }
        try FuzzViolation.require(
            reimported.count == imported.count,
            "list --json of \(imported.count) devices imports as \(reimported.count)")
        try FuzzViolation.require(
            DeviceListing.jsonLines(reimported.devices) == lines, "list --json changes when imported and listed again")
        var merged = registry ?? RegisteredDevices()
        let before = merged
        do throws(RegistryError) {
            try merged.merge(imported)
        } catch {
            // An import is refused only for a name both a device id and a group, or a record of the
            // file that cannot be read.
            switch error {
            case .nameTaken: break
            case .invalidInput where !imported.unreadableDevices.isEmpty: break
            default: throw FuzzViolation("an import is refused: \(error.description)")
            }
            try FuzzViolation.require(merged == before, "a refused import changed the registry")
        }
        try requireRoundTrip(merged, "registry after import", exact: false)
    }

    /// A registry kept as a flat map (beside the server that writes one) reads back from the flat
    /// map and its sidecar as the same registry.
    static func requireFlatMapRoundTrip(_ registry: RegisteredDevices) throws(FuzzViolation) {
        let flat: RegisteredDevices
        let sidecar: RegisteredDevices
        do throws(JSONSyntaxError) {
            flat = try RegisteredDevices(stateFile: Data(registry.flatMapBytes()))
            sidecar = try RegisteredDevices(stateFile: Data(registry.stateFileBytes()))
        } catch {
            throw FuzzViolation("the registry as a flat map and sidecar does not read back: \(error.detail)")
        }
        try FuzzViolation.require(flat.storedFormat == .legacyFlatMap, "the flat map written reads back as another")
        let combined = RegisteredDevices.combining(flatMap: flat, sidecar: sidecar)
        try FuzzViolation.require(combined == registry, "the registry as flat map and sidecar reads back as another")
        try FuzzViolation.require(
            combined.flatMapBytes() == registry.flatMapBytes(), "the flat map changes when read and written again")
    }

    /// What `registry` writes reads back (as the same registry when `exact`: records read from a
    /// file are copied as they were; changed ones are written with millisecond timestamps) and
    /// writes the same bytes again.
    static func requireRoundTrip(_ registry: RegisteredDevices, _ what: String, exact: Bool) throws(FuzzViolation) {
        let written = registry.stateFileBytes()
        let reread: RegisteredDevices
        do throws(JSONSyntaxError) {
            reread = try RegisteredDevices(stateFile: Data(written))
        } catch {
            throw FuzzViolation("the \(what) as written does not read back: \(error.detail)")
        }
        try FuzzViolation.require(!exact || reread == registry, "the \(what) as written reads back as another registry")
        try FuzzViolation.require(
            reread.stateFileBytes() == written, "the \(what) as written changes when read and written again")
        let again: RegisteredDevices
        do throws(JSONSyntaxError) {
            again = try RegisteredDevices(stateFile: Data(reread.stateFileBytes()))
        } catch {
            throw FuzzViolation("the \(what) written twice does not read back: \(error.detail)")
        }
        try FuzzViolation.require(again == reread, "the \(what) reads back as another registry")
    }
}
