#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `register-apns import`: reading another registry and merging it into this one.
extension RegisteredDevices {
    /// What `merge(_:)` did, device by device.
    public struct ImportSummary: Sendable, Equatable {
        /// Devices that were not in the registry.
        public var added: [String] = []
        /// Devices whose record was replaced by the imported one.
        public var updated: [String] = []
        /// Devices whose imported record equals the registry's.
        public var unchanged: [String] = []
        /// Devices whose registry record was seen more recently than the imported one, kept as they were.
        public var keptNewer: [String] = []
        /// Registry devices removed because an imported device took their token.
        public var movedFrom: [String] = []

        public init() {}
    }

    /// Parses a file to import: a state file of either format, or JSON Lines as `list --json`
    /// prints them (one object per line with `device_id`).
    /// - Throws: `JSONSyntaxError` naming line and column.
    public init(importing data: Data) throws(JSONSyntaxError) {
        if Self.looksLikeJSONLines(data) {
            self = try JSONScanner.withScanner(over: data) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
                var registry = RegisteredDevices()
                while !scanner.isAtEnd() {
                    let (id, record) = try DeviceRecord.read(from: &scanner, deviceID: nil)
                    registry.records[id] = record
                }
                return registry
            }
        } else {
            self = try RegisteredDevices(stateFile: data)
        }
        changeCount = 0
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
    @discardableResult
    public mutating func merge(_ imported: RegisteredDevices) -> ImportSummary {
        var summary = ImportSummary()
        for device in imported.sortedDevices {
            var incoming = device.record
            if let existing = records[device.id] {
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
            let holders = deviceIDs(holding: incoming.token).filter { $0 != device.id }
            if holders.contains(where: { Self.isLater(records[$0]?.lastRegisteredAt, than: incoming.lastRegisteredAt) }) {
                summary.keptNewer.append(device.id)
                continue
            }
            for holder in holders { records[holder] = nil }
            summary.movedFrom += holders
            if records.updateValue(incoming, forKey: device.id) == nil {
                summary.added.append(device.id)
            } else {
                summary.updated.append(device.id)
            }
        }
        if !summary.added.isEmpty || !summary.updated.isEmpty { changeCount += 1 }
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
