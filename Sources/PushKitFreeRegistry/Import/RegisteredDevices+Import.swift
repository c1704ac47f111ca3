#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// `register-apns import`: reading another registry and merging it into this one.
extension RegisteredDevices {
    /// What `merge(_:)` did, device by device.
    package struct ImportSummary: Sendable, Equatable {
        /// Devices that were not in the registry.
        package var added: [String] = []
        /// Devices whose record was replaced by the imported one.
        package var updated: [String] = []
        /// Devices whose imported record equals the registry's.
        package var unchanged: [String] = []
        /// Devices whose registry record was seen more recently than the imported one, kept as they were.
        package var keptNewer: [String] = []
        /// Registry devices removed because an imported device took their token.
        package var movedFrom: [String] = []

        /// An empty summary.
        package init() {}
    }

    /// Parses a file to import: a state file of either format, or JSON Lines as `list --json`
    /// prints them (one object per line with `device_id`).
    /// - Throws: `JSONSyntaxError` naming line and column.
    package init(importing data: Data) throws(JSONSyntaxError) {
        if Self.looksLikeJSONLines(data) {
            self = try JSONScanner.withScanner(over: data) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
                var devices: [RegisteredDevice] = []
                while !scanner.isAtEnd() {
                    devices.append(try DeviceRecord.read(from: &scanner, deviceID: nil))
                }
                return RegisteredDevices(devices: devices)
            }
        } else {
            self = try RegisteredDevices(stateFile: data)
        }
        markUnchanged()
    }

    /// True when the first line is a whole JSON object with a `device_id` member (a state file's
    /// first line is `{`, a one-line flat map has no `device_id`).
    private static func looksLikeJSONLines(_ data: Data) -> Bool {
        let firstLine = data.prefix { $0 != UInt8(ascii: "\n") }
        guard let object = try? JSONValue.parse(Data(firstLine)).objectValue else { return false }
        return object[DeviceRecord.deviceIDField] != nil
    }

    /// Merges `imported` into this registry.
    ///
    /// Per device: a device not here is added; when both have it, the record whose app registered
    /// last (`last_seen_at`, else `registered_at`, unknown counting as oldest) wins whole, the
    /// imported one on a tie, keeping the earliest `registered_at` and latest `last_delivered_at` of
    /// the two. A token stays with one device id: an imported device takes it from a registry device
    /// registered no later, and otherwise is not imported.
    /// - Throws: `RegistryError.nameTaken` (65) when the result would hold a name that is both a
    ///   device id and a group, and this registry holds none such (see `RegisteredDevices+Names.swift`);
    ///   `.invalidInput` (65) for a record of `imported` that cannot be read; `.unreadableRecord`
    ///   (65) for a device whose record here cannot be read. Nothing is changed then.
    @discardableResult
    package mutating func merge(_ imported: RegisteredDevices) throws(RegistryError) -> ImportSummary {
        if let unreadable = imported.unreadableDevices.first {
            throw .invalidInput(
                "device \"\(unreadable.id)\" of the file to import cannot be read: \(unreadable.problem); "
                    + "nothing was imported")
        }
        for device in imported.devices {
            if let unreadable = unreadableDevice(device.id) { throw .unreadableRecord(unreadable) }
        }
        var summary = ImportSummary()
        // Decided first, applied in one pass: inserting into the sorted array one by one would move
        // the whole registry for each imported device.
        var decided: [String: DeviceRecord?] = [:]
        var holders: [DeviceToken: [String]] = [:]
        for device in devices { holders[device.record.token, default: []].append(device.id) }
        func current(_ id: String) -> DeviceRecord? {
            if let decision = decided[id] { return decision }
            return self[id]
        }

        for device in imported.devices {
            var incoming = device.record
            let existing = current(device.id)
            if let existing {
                if existing == incoming {
                    summary.unchanged.append(device.id)
                    continue
                }
                if Self.isLater(existing.lastRegisteredAt, than: incoming.lastRegisteredAt) {
                    summary.keptNewer.append(device.id)
                    continue
                }
                incoming.registeredAt = Self.earliest(existing.registeredAt, incoming.registeredAt)
                incoming.lastDeliveredAt = Self.latest(existing.lastDeliveredAt, incoming.lastDeliveredAt)
            }
            let others = (holders[incoming.token] ?? []).filter {
                $0 != device.id && current($0)?.token == incoming.token
            }
            if others.contains(where: { Self.isLater(current($0)?.lastRegisteredAt, than: incoming.lastRegisteredAt) })
            {
                summary.keptNewer.append(device.id)
                continue
            }
            for other in others { decided[other] = .some(nil) }
            summary.movedFrom += others
            if existing == nil { summary.added.append(device.id) } else { summary.updated.append(device.id) }
            decided[device.id] = .some(incoming)
            holders[incoming.token, default: []].append(device.id)
        }
        guard !decided.isEmpty else { return summary }

        var merged: [RegisteredDevice] = []
        merged.reserveCapacity(devices.count + summary.added.count)
        for device in devices {
            switch decided.removeValue(forKey: device.id) {
            case .none: merged.append(device)
            case .some(.none): continue
            case .some(.some(let record)): merged.append(RegisteredDevice(id: device.id, record: record))
            }
        }
        for (id, decision) in decided {
            if let record = decision { merged.append(RegisteredDevice(id: id, record: record)) }
        }
        merged = Self.sortedByID(merged)
        try checkNames(importing: merged)
        changedDeviceIDs.formUnion(decided.keys)
        devices = merged
        if tokenIndex != nil { tokenIndex = TokenIndex(devices) }
        changeCount += 1
        return summary
    }

    private static func isLater(_ date: Date?, than other: Date?) -> Bool {
        guard let date else { return false }
        guard let other else { return true }
        return date > other
    }

    private static func earliest(_ first: Date?, _ second: Date?) -> Date? {
        guard let first, let second else { return first ?? second }
        return min(first, second)
    }

    private static func latest(_ first: Date?, _ second: Date?) -> Date? {
        guard let first, let second else { return first ?? second }
        return max(first, second)
    }
}
