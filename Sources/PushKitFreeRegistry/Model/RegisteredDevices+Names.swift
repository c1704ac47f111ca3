import PushKitFreeCore

/// The rule that a name is a device id or a group, never both.
///
/// An ntfy topic and a Bark key name either a device or a group, and a name that were both would
/// send to whichever the lookup tried first: a peer that registered a device named after a group
/// would get every notification meant for the group, and the group's members nothing. So the
/// registry refuses every change that would make a name both: a new device id that names a group,
/// a device put in a group whose name is a device id (`register(_:at:)`, which every way of
/// registering goes through, and `merge(_:)`, for imports). Both stores run these on the registry
/// as it is under the writers' lock, so two registrations at once cannot get past it either.
/// A registry edited by hand can still hold such a name (`ambiguousNames`); the lookups refuse it
/// rather than guess.
extension RegisteredDevices {
    /// How many devices are in group `name` (those with unreadable records included).
    package func memberCount(ofGroup name: String) -> Int {
        let unreadable = unreadableDevices.reduce(0) { $0 + ($1.groups.contains(name) ? 1 : 0) }
        if let tokenIndex { return unreadable + (tokenIndex.groupSizes[name] ?? 0) }
        return unreadable + devices.reduce(0) { $0 + ($1.record.groups.contains(name) ? 1 : 0) }
    }

    /// Whether some device is in group `name` (one with an unreadable record included).
    package func isGroup(_ name: String) -> Bool {
        if unreadableDevices.contains(where: { $0.groups.contains(name) }) { return true }
        if let tokenIndex { return tokenIndex.groupSizes[name] != nil }
        return devices.contains { $0.record.groups.contains(name) }
    }

    /// Whether a device has the id `name` (one with an unreadable record included).
    package func isDevice(_ name: String) -> Bool {
        self[name] != nil || unreadableDevice(name) != nil
    }

    /// The names that are both a device id and a group, sorted: only a registry edited by hand (or
    /// written before the rule) holds any.
    package var ambiguousNames: [String] { Self.ambiguousNames(in: devices) }

    /// The ids of `devices` that are also a group of one of them, in the order of `devices`.
    static func ambiguousNames(in devices: [RegisteredDevice]) -> [String] {
        let groups = Set(devices.lazy.flatMap(\.record.groups))
        return devices.compactMap { groups.contains($0.id) ? $0.id : nil }
    }

    /// Refuses a registration that would make a name both a device id and a group: a device id not
    /// registered yet that names a group, or a group the device does not belong to yet whose name
    /// is a device id (this device's own included). What the device has already is left alone, so
    /// a device registered before the rule keeps registering; the lookups refuse such a name.
    /// - Throws: `RegistryError.nameTaken` (65; 409 on the endpoint).
    func checkNames(of registration: DeviceRegistration) throws(RegistryError) {
        let id = registration.deviceID
        let existing = self[id]
        if existing == nil {
            let members = memberCount(ofGroup: id)
            if members > 0 { throw .nameTaken(Self.groupHoldsName(id, members: members)) }
        }
        for group in registration.groups ?? [] where existing?.groups.contains(group) != true {
            if group == id || isDevice(group) { throw .nameTaken(Self.deviceHoldsName(group)) }
        }
    }

    /// Refuses an import whose result, `merged`, would hold a name that is both a device id and a
    /// group where this registry holds none.
    /// - Throws: `RegistryError.nameTaken` (65), naming the first such name.
    func checkNames(importing merged: [RegisteredDevice]) throws(RegistryError) {
        let before = Set(ambiguousNames)
        guard let name = Self.ambiguousNames(in: merged).first(where: { !before.contains($0) }) else { return }
        throw .nameTaken(
            "importing would make \"\(name)\" both a device id and a group: a name is a device or a group, "
                + "never both; nothing was imported (rename the device or the group in the file to import)")
    }

    private static func groupHoldsName(_ name: String, members: Int) -> String {
        "device id \"\(name)\" is the name of a group of \(members) device\(members == 1 ? "" : "s"): "
            + "a name is a device or a group, never both; choose another device id"
    }

    private static func deviceHoldsName(_ name: String) -> String {
        "group \"\(name)\" is the id of a device: a name is a device or a group, never both; "
            + "choose another group name"
    }
}
