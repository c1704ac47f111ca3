#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Where the device registry is kept: the JSON state file (`StateFileRegistry`, the default) or a
/// PostgreSQL database (`PostgresRegistry`, when `state_file` is a `postgres://` URL).
///
/// Every tool reads and changes the registry through these two operations, so every change (add,
/// remove, prune, learn an environment, record a delivery, briefing settings, groups) has the same
/// meaning on either store: `update` runs its body on the registry as it is under the writers' lock
/// and stores what the body changed, all or nothing. When `update` returns, the change is durable
/// (the file renamed and synced; the transaction committed).
package protocol RegistryStore: DeviceDirectory {
    /// The source of `registered_at`, `last_seen_at` and `last_delivered_at` times.
    var clock: any WallClock { get }
    /// Where the registry is, for messages: the state file's path, or the database URL with its
    /// password masked.
    var location: String { get }
    /// The file the registry is kept in, with what only a file can do; `nil` for a database.
    var file: (any RegistryFile)? { get }
    /// The database schema the registry keeps, with its migration; `nil` for a file.
    var schema: (any RegistrySchema)? { get }

    /// The registry as it is now; empty when nothing was ever registered.
    func load() throws(RegistryError) -> RegisteredDevices

    /// Changes the registry under the writers' lock and stores the change, all or nothing.
    ///
    /// `body` may run more than once (on fresh contents) when the store has to try again, so it must
    /// only change `devices` and its own results. When it throws, nothing is stored.
    @discardableResult
    func update<Result>(_ body: (inout RegisteredDevices) throws -> Result) throws -> Result
}

extension RegistryStore {
    /// Adds or updates devices in one locked write, stamped with the clock's time. All or nothing:
    /// the registrations were validated when they were made, and one the registry refuses (a name
    /// both a device id and a group, `RegistryError.nameTaken`) leaves every one unwritten.
    @discardableResult
    package func register(_ registrations: [DeviceRegistration]) throws -> [RegisteredDevices.RegistrationOutcome] {
        let now = clock.now()
        return try update { devices in try registrations.map { try devices.register($0, at: now) } }
    }

    /// Removes the device with id `idOrToken`, or else the devices holding that token.
    /// - Throws: `RegistryError.unknownDevice` (65) when nothing matched; nothing is written.
    @discardableResult
    package func remove(idOrToken: String) throws -> [RegisteredDevice] {
        try update { devices in
            let removed = devices.remove(idOrToken: idOrToken)
            if removed.isEmpty { throw RegistryError.unknownDevice(idOrToken, path: location) }
            return removed
        }
    }

    /// Merges another registry (see `RegisteredDevices.merge(_:)`).
    @discardableResult
    package func merge(_ imported: RegisteredDevices) throws -> RegisteredDevices.ImportSummary {
        try update { devices in try devices.merge(imported) }
    }

    /// The devices `selection` addresses, read without locking.
    package func devices(_ selection: DeviceSelection = .all) throws(RegistryError) -> DeviceSelection.Match {
        selection.match(in: try load())
    }

    /// Applies Apple's 410 rule to one device (see `RegisteredDevices.removeIfUnregistered`).
    /// - Returns: `true` when the device was removed.
    @discardableResult
    package func removeIfUnregistered(deviceID: String, token: DeviceToken, unregisteredAt: Date?) throws -> Bool {
        try update { devices in
            devices.removeIfUnregistered(deviceID: deviceID, token: token, unregisteredAt: unregisteredAt)
        }
    }

    /// Records the environment a device's token belongs to; no write when it is already known.
    @discardableResult
    package func recordEnvironment(_ environment: APNsEnvironment, deviceID: String, token: DeviceToken) throws -> Bool
    {
        try update { devices in devices.recordEnvironment(environment, deviceID: deviceID, token: token) }
    }

    /// Sets `last_delivered_at` of a batch of devices to now, in one locked write.
    @discardableResult
    package func recordDelivery(to deviceIDs: [String]) throws -> Int {
        let now = clock.now()
        return try update { devices in devices.recordDelivery(to: deviceIDs, at: now) }
    }

    /// Stores a device's content key (see `RegisteredDevices.setContentKey`); nothing is written
    /// unless it is stored.
    package func setContentKey(
        _ key: ContentKey, deviceID: String, replacing: Bool
    ) throws -> RegisteredDevices.ContentKeyChange {
        try update { devices in devices.setContentKey(key, deviceID: deviceID, replacing: replacing) }
    }

    /// Stores a device's briefing settings (see `RegisteredDevices.setBriefing`).
    /// - Returns: `false` when no device has that id; nothing is written then.
    @discardableResult
    package func setBriefing(_ settings: BriefingSettings, deviceID: String) throws -> Bool {
        let now = clock.now()
        return try update { devices in devices.setBriefing(settings, deviceID: deviceID, at: now) }
    }

    /// Records the local day each device was sent its briefing, in one locked write.
    @discardableResult
    package func recordBriefingSent(_ days: [String: LocalDate]) throws -> Int {
        guard !days.isEmpty else { return 0 }
        return try update { devices in devices.recordBriefingSent(days) }
    }
}

extension StateFileRegistry: RegistryStore {
    /// The state file's path.
    package var location: String { path }
}

extension Configuration {
    /// The registry `state_file` names: a `postgres://` or `postgresql://` URL is a PostgreSQL
    /// database (`PostgresRegistry`), anything else the path of the JSON state file (`StateFileRegistry`).
    /// Opening a database registry connects nothing yet: the first read or write does.
    /// - Parameter appendingToJournal: for a process that writes many batches (`register-apns
    ///   serve`): a large state file's changes go to its journal (`StateFileRegistry.appendsToJournal`),
    ///   and the process calls `StateFileRegistry.foldJournal()` when idle and before it exits.
    package func registry(clock: any WallClock = SystemClock(), appendingToJournal: Bool = false) -> any RegistryStore {
        let location = stateFile.value
        if PostgresURL.isDatabaseURL(location) {
            return PostgresRegistry(url: location, clock: clock, retry: registryTuning.databaseRetry)
        }
        var registry = StateFileRegistry(path: location, clock: clock)
        registry.origin =
            stateFile.source == .defaultValue
            ? "the devices file, in the state directory from \(stateDirectory.source)"
            : "the devices file, from \(stateFile.source)"
        registry.appendsToJournal = appendingToJournal
        registry.journalThreshold = registryTuning.journalThreshold
        return registry
    }

    /// Where the registry is, for messages: the state file's path, or the database URL with its
    /// password masked.
    package var registryLocation: String {
        PostgresURL.isDatabaseURL(stateFile.value) ? PostgresURL.masked(stateFile.value) : stateFile.value
    }
}
