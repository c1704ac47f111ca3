import PushKitFreeCore
/// Which devices a command addresses: some device ids, the members of some groups, or all.
package struct DeviceSelection: Sendable, Equatable {
    /// Device ids named explicitly.
    package var deviceIDs: [String]
    /// Groups whose members are addressed.
    package var groups: [String]

    /// Selects `deviceIDs` and the members of `groups`; both empty selects every device.
    package init(deviceIDs: [String] = [], groups: [String] = []) {
        self.deviceIDs = deviceIDs
        self.groups = groups
    }

    /// Every device.
    package static let all = DeviceSelection()

    /// What a selection found in a registry.
    package struct Match: Sendable, Equatable {
        /// The selected devices, each once, sorted by id.
        package var devices: [RegisteredDevice]
        /// Named device ids that are not registered, in the order given.
        package var unknownDeviceIDs: [String]
        /// Named groups that no device belongs to, in the order given.
        package var emptyGroups: [String]
        /// The selected devices whose records cannot be read, sorted by id: a send reports each
        /// refused rather than leaving it out unsaid (see `UnreadableDevice`).
        package var unreadable: [UnreadableDevice] = []
    }

    /// The devices of `registry` this selection addresses, and the names that matched nothing
    /// (for a batch to report at the end rather than stop at).
    package func match(in registry: RegisteredDevices) -> Match {
        if deviceIDs.isEmpty, groups.isEmpty {
            return Match(
                devices: registry.devices, unknownDeviceIDs: [], emptyGroups: [], unreadable: registry.unreadableDevices
            )
        }
        let named = Set(deviceIDs)
        let wanted = Set(groups)
        var found = Set<String>()
        var filled = Set<String>()
        var devices: [RegisteredDevice] = []
        for device in registry.devices {
            let hits = device.record.groups.filter(wanted.contains)
            filled.formUnion(hits)
            if named.contains(device.id) { found.insert(device.id) }
            if named.contains(device.id) || !hits.isEmpty { devices.append(device) }
        }
        var unreadable: [UnreadableDevice] = []
        for device in registry.unreadableDevices {
            let hits = device.groups.filter(wanted.contains)
            filled.formUnion(hits)
            if named.contains(device.id) { found.insert(device.id) }
            if named.contains(device.id) || !hits.isEmpty { unreadable.append(device) }
        }
        var unknown: [String] = []
        for id in deviceIDs where !found.contains(id) && !unknown.contains(id) { unknown.append(id) }
        var empty: [String] = []
        for group in groups where !filled.contains(group) && !empty.contains(group) { empty.append(group) }
        return Match(devices: devices, unknownDeviceIDs: unknown, emptyGroups: empty, unreadable: unreadable)
    }
}
