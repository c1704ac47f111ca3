#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The contents of the device registry: device id → record, and the rules for changing it.
///
/// A plain value, with no file behind it: `StateFileRegistry` reads one from the state file, lets a
/// closure change it, and writes it back. Every change goes through the methods here, which keep one
/// invariant: a token belongs to one device id (one app install).
///
/// Besides the devices, the value carries what its store needs between the read and the write of
/// one `update`: the form the file was read in (`storedFormat`, `adoptedLegacyEntries`, the
/// journal's `journalBase` and `journalFolded`), the changes made (`changeCount`,
/// `changedDeviceIDs`: a write returns nothing else to its store, which writes only those), and the
/// token index of a registry kept between writes. They travel with the devices because `update`
/// hands its closure this one value, `inout`; they are the registry module's own (internal, but
/// `storedFormat`, which the fuzz harness checks), invisible to the core and the tools.
package struct RegisteredDevices: Sendable {
    /// How the state file stored the registry when it was read.
    package enum StoredFormat: Sendable, Equatable {
        /// There was no file (or an empty one).
        case absent
        /// `{"version": 1, "devices": {...}}`.
        case versioned
        /// The flat map `{"<device id>": "<token>"}` of earlier servers; written back as a flat map,
        /// with what it cannot hold in the sidecar (see `StateFileRegistry`).
        case legacyFlatMap
        /// Version 1 with registrations a writer of the flat map added beside `version` and
        /// `devices` (`adoptedLegacyEntries`). That writer is still running, so the registry is
        /// written back as a flat map it (and its own readers) understand.
        case versionedWithLegacyEntries
    }

    /// The state file's layout version this code reads and writes.
    package static let formatVersion = 1

    /// Every device, sorted by id: the order of the state file and of `list`.
    ///
    /// A sorted array rather than a dictionary: a registry of 100,000 devices is read, changed in one
    /// place and written back on every registration, and the file is already in this order, so
    /// reading builds no hash table and writing sorts nothing. Lookups by id are binary searches.
    package internal(set) var devices: [RegisteredDevice]
    /// The devices whose records could not be read, sorted by id; none of their ids is in
    /// `devices`. Kept, written back unchanged, and sent nothing (see `UnreadableDevice`).
    package internal(set) var unreadableDevices: [UnreadableDevice] = []
    /// Top-level members of the state file this version does not know, preserved on rewrite.
    package var otherFields: [String: JSONValue] {
        didSet { changeCount += 1 }
    }
    /// How the file was stored when read; `.absent` for a registry built in memory.
    package internal(set) var storedFormat: StoredFormat
    /// The device ids adopted from top-level members of a version 1 file (see `StoredFormat`).
    var adoptedLegacyEntries: [String] = []
    /// Whether `StateFileRegistry` writes this registry as a flat map plus sidecar: it was read from one,
    /// or a writer of the flat map added registrations to the version 1 file it was read from.
    package var writesFlatMap: Bool {
        storedFormat == .legacyFlatMap || storedFormat == .versionedWithLegacyEntries
    }
    /// The state file's `journal_base`: which version of the file a journal beside it continues
    /// (see `RegistryJournal`); `nil` in a file never written for a journal. Not part of equality.
    var journalBase: String?
    /// The state file's `journal_folded`, `"<base> <bytes>"`: the file was written by folding the
    /// journal of that base through that many bytes into the file of that base, and nothing else
    /// (see `RegistryJournal`). `nil` after any other write. Not part of equality.
    var journalFolded: String?
    /// Incremented by every change, so `StateFileRegistry.update` can skip writing when nothing changed.
    var changeCount = 0
    /// The ids of the devices changed, added or removed since the registry was read or last
    /// written (`markUnchanged()`), for stores that write only what changed (the state file's
    /// journal, PostgreSQL). Top-level members are not counted here: compare `otherFields`.
    var changedDeviceIDs: Set<String> = []
    /// Device ids by token, when this registry keeps one (see `RegisteredDevices+TokenIndex.swift`);
    /// every change below keeps it right. Not part of equality.
    var tokenIndex: TokenIndex?
    /// Whether the first change that looks a token up builds `tokenIndex`: set on a registry kept
    /// between changes (`StateFileRegistry`'s cache), where the index pays for itself.
    var indexesTokens = false

    /// A registry holding `devices`, in any order; of repeated ids the last wins.
    package init(devices: [RegisteredDevice] = [], otherFields: [String: JSONValue] = [:]) {
        self.devices = Self.sortedByID(devices)
        self.otherFields = otherFields
        self.storedFormat = .absent
    }

    /// A registry holding `records` by device id.
    package init(records: [String: DeviceRecord], otherFields: [String: JSONValue] = [:]) {
        self.init(devices: records.map { RegisteredDevice(id: $0.key, record: $0.value) }, otherFields: otherFields)
    }

    /// `devices` sorted by id with each id once (the last of repeated ones, as JSON objects do);
    /// returned as is, without sorting, when it already is.
    static func sortedByID(_ devices: [RegisteredDevice]) -> [RegisteredDevice] {
        var isStrictlySorted = true
        for index in devices.indices.dropFirst() where !(devices[index - 1].id < devices[index].id) {
            isStrictlySorted = false
            break
        }
        if isStrictlySorted { return devices }
        let sorted = devices.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }.map(
            \.element)
        var unique: [RegisteredDevice] = []
        unique.reserveCapacity(sorted.count)
        for device in sorted {
            if unique.last?.id == device.id { unique[unique.count - 1] = device } else { unique.append(device) }
        }
        return unique
    }

    /// Counts no change: what a registry just read or written is.
    mutating func markUnchanged() {
        changeCount = 0
        changedDeviceIDs = []
    }

    /// The number of devices whose records can be used (`unreadableDevices` not counted).
    package var count: Int { devices.count }

    /// The unreadable record of `deviceID`, when it has one.
    package func unreadableDevice(_ deviceID: String) -> UnreadableDevice? {
        unreadableDevices.isEmpty ? nil : unreadableDevices.first { $0.id == deviceID }
    }

    /// Keeps `device` as unreadable, in place of any record of its id (a database row changed by
    /// hand, a record read from the state file).
    mutating func keepUnreadable(_ device: UnreadableDevice) {
        self[device.id] = nil
        let index = unreadableDevices.firstIndex { $0.id > device.id } ?? unreadableDevices.endIndex
        unreadableDevices.insert(device, at: index)
    }

    /// The device ids, sorted.
    package var deviceIDs: [String] { devices.map(\.id) }

    /// Where `deviceID` is or would be inserted, by binary search.
    func position(of deviceID: String) -> (index: Int, found: Bool) {
        var low = 0
        var high = devices.count
        while low < high {
            let middle = (low + high) / 2
            if devices[middle].id < deviceID { low = middle + 1 } else { high = middle }
        }
        return (low, low < devices.count && devices[low].id == deviceID)
    }

    /// The record of `deviceID`; setting `nil` removes the device. Setting does not check that the
    /// token is unique: use `register(_:at:)` for that. Setting either way also drops an unreadable
    /// record of that id (a newer record from a journal or a database, or a removal, replaces it).
    package subscript(deviceID: String) -> DeviceRecord? {
        get {
            let (index, found) = position(of: deviceID)
            return found ? devices[index].record : nil
        }
        set {
            if !unreadableDevices.isEmpty, let index = unreadableDevices.firstIndex(where: { $0.id == deviceID }) {
                unreadableDevices.remove(at: index)
                changeCount += 1
                changedDeviceIDs.insert(deviceID)
            }
            let (index, found) = position(of: deviceID)
            if tokenIndex != nil {
                if found { tokenIndex!.remove(deviceID, devices[index].record) }
                if let newValue { tokenIndex!.insert(deviceID, newValue) }
            }
            switch (found, newValue) {
            case (true, let record?): devices[index].record = record
            case (true, nil): devices.remove(at: index)
            case (false, let record?): devices.insert(RegisteredDevice(id: deviceID, record: record), at: index)
            case (false, nil): return
            }
            changeCount += 1
            changedDeviceIDs.insert(deviceID)
        }
    }

    /// Stores `device` as read from a journal, its bytes kept for the next write (`nil` removes
    /// the device `id`). Like the subscript, it checks no token's uniqueness: a journal holds
    /// what registrations already checked.
    mutating func store(_ device: RegisteredDevice?, as id: String) {
        self[id] = device?.record
        guard let storedJSON = device?.storedJSON else { return }
        let (index, found) = position(of: id)
        if found { devices[index].storedJSON = storedJSON }
    }

    /// The ids of the devices holding `token`, sorted.
    package func deviceIDs(holding token: DeviceToken) -> [String] {
        guard let tokenIndex else { return devices.compactMap { $0.record.token == token ? $0.id : nil } }
        return tokenIndex.holders[token]?.ids ?? []
    }

    // MARK: Registering and removing

    /// What `register(_:at:)` did.
    package struct RegistrationOutcome: Sendable, Equatable {
        /// The device as now stored.
        package let device: RegisteredDevice
        /// `true` when the device id was not registered before.
        package let isNew: Bool
        /// `true` when the device was registered before with a different token.
        package let tokenChanged: Bool
        /// Device ids that held the token before and were removed (a token belongs to one install).
        package let movedFrom: [String]
    }

    /// Adds or updates a device.
    ///
    /// An update keeps `registered_at`, sets `last_seen_at` to `now`, and replaces only the fields
    /// the registration carries. When the token changes and no environment is given, the environment
    /// is reset to unknown: a new token may come from the other environment (a debug build after a
    /// TestFlight one). Other device ids holding the same token are removed. A push-to-start token
    /// given is stored, and cleared from any other device that held it (it too belongs to one
    /// install, and a start sent to it twice would start two activities); one not given is kept. A
    /// content key given replaces the device's; one not given is kept (also with a new token).
    /// - Throws: `RegistryError.nameTaken` (65) for a device id that names a group, or a group
    ///   that names a device (see `RegisteredDevices+Names.swift`); nothing is changed then.
    /// - Throws: `RegistryError.unreadableRecord` (65) for a device whose record cannot be read:
    ///   registering would rewrite it.
    @discardableResult
    package mutating func register(
        _ registration: DeviceRegistration, at now: Date
    ) throws(RegistryError) -> RegistrationOutcome {
        prepareTokenLookups()
        if let unreadable = unreadableDevice(registration.deviceID) { throw .unreadableRecord(unreadable) }
        try checkNames(of: registration)
        let id = registration.deviceID
        let existing = self[id]
        var record = existing ?? DeviceRecord(token: registration.token)
        let tokenChanged = existing.map { $0.token != registration.token } ?? false
        record = record.replacingToken(registration.token)
        if record.registeredAt == nil { record.registeredAt = now }
        record.lastSeenAt = now
        if let environment = registration.environment, record.token.transport == .apns {
            record.environment = environment
        }
        if let name = registration.name { record.name = name }
        if let model = registration.model { record.model = model }
        if let osVersion = registration.osVersion { record.osVersion = osVersion }
        if let appVersion = registration.appVersion { record.appVersion = appVersion }
        if let groups = registration.groups { record.groups = groups }
        if let timeZone = registration.timeZone { record.timeZone = timeZone }
        if let contentKey = registration.contentKey { record.contentKey = contentKey }
        if let pushToStartToken = registration.pushToStartToken {
            record.pushToStartToken = pushToStartToken
            for other in deviceIDs(holdingPushToStart: pushToStartToken) where other != id {
                guard var cleared = self[other] else { continue }
                cleared.pushToStartToken = nil
                self[other] = cleared
            }
        }

        let movedFrom = deviceIDs(holding: registration.token).filter { $0 != id }
        for other in movedFrom { self[other] = nil }
        self[id] = record
        return RegistrationOutcome(
            device: RegisteredDevice(id: id, record: record), isNew: existing == nil,
            tokenChanged: tokenChanged, movedFrom: movedFrom
        )
    }

    /// Removes the device with id `idOrToken`, or else every device holding the token `idOrToken`
    /// (any case). Returns what was removed, sorted by id; empty when nothing matched.
    /// A record of that id that cannot be read is removed too, returned with its token (or
    /// `DeviceToken.unreadable` when that could not be read either).
    package mutating func remove(idOrToken: String) -> [RegisteredDevice] {
        if let unreadable = unreadableDevice(idOrToken) {
            self[idOrToken] = nil
            return [RegisteredDevice(id: unreadable.id, record: DeviceRecord(token: unreadable.token ?? .unreadable))]
        }
        if let record = self[idOrToken] {
            self[idOrToken] = nil
            return [RegisteredDevice(id: idOrToken, record: record)]
        }
        guard let token = try? DeviceToken(validating: idOrToken, transport: nil) else { return [] }
        prepareTokenLookups()
        var removed: [RegisteredDevice] = []
        for id in deviceIDs(holding: token) {
            guard let record = self[id] else { continue }
            self[id] = nil
            removed.append(RegisteredDevice(id: id, record: record))
        }
        return removed
    }

    // MARK: What send-push records

    /// Removes `deviceID` after APNs answered 410 for `token`, unless the app registered again after
    /// `unregisteredAt` (Apple: stop sending "unless the app registers it again after timestamp").
    ///
    /// Nothing happens when the device now holds another token (it re-registered meanwhile).
    /// - Parameter unregisteredAt: the 410 response's `timestamp`; `nil` removes unconditionally.
    /// - Returns: `true` when the device was removed.
    @discardableResult
    package mutating func removeIfUnregistered(deviceID: String, token: DeviceToken, unregisteredAt: Date?) -> Bool {
        guard let record = self[deviceID], record.token == token else { return false }
        if record.registeredAgain(after: unregisteredAt) { return false }
        self[deviceID] = nil
        return true
    }

    /// Clears the push-to-start token of `deviceID` after APNs answered 410 for it, unless the app
    /// registered again after `unregisteredAt` (the same rule as `removeIfUnregistered`). The
    /// device and its device token stay: only the push-to-start token is dead.
    ///
    /// Nothing happens when the device now holds another push-to-start token.
    /// - Returns: `true` when the token was cleared.
    @discardableResult
    package mutating func clearPushToStartTokenIfUnregistered(
        deviceID: String, token: DeviceToken, unregisteredAt: Date?
    ) -> Bool {
        guard var record = self[deviceID], record.pushToStartToken == token else { return false }
        if record.registeredAgain(after: unregisteredAt) { return false }
        record.pushToStartToken = nil
        self[deviceID] = record
        return true
    }

    /// Records the environment where `token` was accepted (or where it must belong after the other
    /// one answered `BadDeviceToken`). Nothing happens when the device now holds another token, or
    /// for an FCM token, which has no APNs environment.
    /// - Returns: `true` when the record changed.
    @discardableResult
    package mutating func recordEnvironment(
        _ environment: APNsEnvironment, deviceID: String, token: DeviceToken
    ) -> Bool {
        guard var record = self[deviceID], record.token == token, token.transport == .apns,
            record.environment != environment
        else {
            return false
        }
        record.environment = environment
        self[deviceID] = record
        return true
    }

    /// Sets `last_delivered_at` of each of `deviceIDs` to `date`; ids not in the registry are skipped.
    /// - Returns: how many records changed.
    @discardableResult
    package mutating func recordDelivery(to deviceIDs: some Sequence<String>, at date: Date) -> Int {
        var changed = 0
        for id in deviceIDs {
            let (index, found) = position(of: id)
            guard found else { continue }
            devices[index].record.lastDeliveredAt = date
            changedDeviceIDs.insert(id)
            changed += 1
        }
        if changed > 0 { changeCount += 1 }
        return changed
    }
}

extension RegisteredDevices: Equatable {
    /// Registries are equal when they hold the same devices and top-level fields, however they
    /// were stored or changed.
    package static func == (lhs: RegisteredDevices, rhs: RegisteredDevices) -> Bool {
        lhs.devices == rhs.devices && lhs.unreadableDevices == rhs.unreadableDevices
            && lhs.otherFields == rhs.otherFields
    }

    // MARK: Content keys

    /// What `setContentKey(_:deviceID:replacing:)` did.
    package enum ContentKeyChange: Sendable, Equatable {
        /// The key was stored.
        case stored
        /// The device has a key already and `replacing` was not given; nothing changed.
        case alreadySet
        /// No device has that id; nothing changed.
        case unknownDevice
    }

    /// Stores `key` as the device's content key; a key it has already is replaced only when
    /// `replacing` (the app holding the old one can no longer read what is sent).
    package mutating func setContentKey(_ key: ContentKey, deviceID: String, replacing: Bool) -> ContentKeyChange {
        let (index, found) = position(of: deviceID)
        guard found else { return .unknownDevice }
        if devices[index].record.contentKey != nil, !replacing { return .alreadySet }
        devices[index].record.contentKey = key
        changeCount += 1
        changedDeviceIDs.insert(deviceID)
        return .stored
    }

    // MARK: Briefings

    /// Stores a device's briefing settings. The day it was last sent is kept unless `settings`
    /// carries one, so changing the time does not send a second briefing the same day. A device's
    /// first settings, made after the day's time has passed in its zone, count today as done: the
    /// first briefing comes at the next time, not at once.
    /// - Parameter now: when the settings are made.
    /// - Returns: `false` when no device has that id (nothing changed).
    package mutating func setBriefing(_ settings: BriefingSettings, deviceID: String, at now: Date) -> Bool {
        let (index, found) = position(of: deviceID)
        guard found else { return false }
        var settings = settings
        if settings.lastSentOn == nil { settings.lastSentOn = devices[index].record.briefing?.lastSentOn }
        if settings.lastSentOn == nil, let zone = SystemTimeZone.named(settings.timeZone),
            zone.minuteOfDay(at: now) >= settings.minuteOfDay
        {
            settings.lastSentOn = zone.localDate(at: now)
        }
        guard devices[index].record.briefing != settings else { return true }
        devices[index].record.briefing = settings
        changeCount += 1
        changedDeviceIDs.insert(deviceID)
        return true
    }

    /// Records that each device was sent its briefing on its local day; devices gone or without
    /// briefing settings are skipped. Returns how many were recorded.
    @discardableResult
    package mutating func recordBriefingSent(_ days: [String: LocalDate]) -> Int {
        var changed = 0
        for (id, day) in days {
            let (index, found) = position(of: id)
            guard found, devices[index].record.briefing != nil else { continue }
            devices[index].record.briefing?.lastSentOn = day
            changedDeviceIDs.insert(id)
            changed += 1
        }
        if changed > 0 { changeCount += 1 }
        return changed
    }
}
