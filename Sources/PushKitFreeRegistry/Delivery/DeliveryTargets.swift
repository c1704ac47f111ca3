#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Chooses whom a run goes to: every registered device by default, `--device`/`--group` to narrow
/// the registry. (A `--token` bypasses the registry: `PushSender` makes its targets itself.)
package enum DeliveryTargets {
    /// - Parameter strictGroups: a named group that no device belongs to is an error, as an unknown
    ///   device id is (a person naming a group expects it to exist); when false (an agent's group that
    ///   nobody subscribed to yet) it selects nothing.
    /// - Throws: `RegistryError` for an unreadable registry, `DeliverySelectionError` (65) for a
    ///   device id that is not registered or, with `strictGroups`, a group without devices.
    /// - Parameter due: a scheduled send: of the selected devices, only those whose send is due at
    ///   `now` in their own zone (see `DueSchedule`).
    ///
    /// A selected device whose record cannot be read is a target with `unusableRecord` set, which
    /// the send refuses (a scheduled send leaves it out: whether it is due cannot be told).
    package static func select(
        registry: any RegistryStore, deviceIDs: [String], groups: [String],
        strictGroups: Bool = false, due: DueSchedule? = nil, at now: Date = Date()
    ) throws -> [DeliveryTarget] {
        var zones = TimeZoneCache()
        let match = try registeredDevices(
            registry: registry, deviceIDs: deviceIDs, groups: groups, strictGroups: strictGroups)
        let unusable = due != nil ? [] : match.unreadable.map { unusableTarget($0) }
        return match.devices.compactMap { device in
            var scheduledDay: LocalDate?
            if let due {
                guard let day = due.dueDay(briefing: device.record.briefing, at: now, zones: &zones) else { return nil }
                scheduledDay = day
            }
            return DeliveryTarget(
                deviceID: device.id, token: device.record.token, recordedEnvironment: device.record.environment,
                timeZone: device.record.timeZone, scheduledDay: scheduledDay, contentKey: device.record.contentKey)
        } + unusable
    }

    /// The target of a device whose record cannot be read: refused by the send, with the reason.
    private static func unusableTarget(
        _ device: UnreadableDevice, tokenKind: DeliveryTarget.TokenKind = .device
    ) -> DeliveryTarget {
        DeliveryTarget(
            deviceID: device.id, token: device.token ?? .unreadable, recordedEnvironment: nil, tokenKind: tokenKind,
            unusableRecord: "its record in the registry cannot be read: \(device.problem); fix it or remove it")
    }

    /// The push-to-start tokens of the registered devices `deviceIDs` and `groups` select (every
    /// device when both are empty).
    /// - Throws: `RegistryError` for an unreadable registry, `DeliverySelectionError` (65) for a
    ///   device id that is not registered or, with `strictGroups`, a group without devices.
    package static func selectPushToStart(
        registry: any RegistryStore, deviceIDs: [String], groups: [String],
        strictGroups: Bool = false
    ) throws -> PushToStartSelection {
        var selection = PushToStartSelection(targets: [], devicesWithoutToken: [])
        var seen = Set<DeviceToken>()
        let match = try registeredDevices(
            registry: registry, deviceIDs: deviceIDs, groups: groups, strictGroups: strictGroups)
        for device in match.devices {
            guard let token = device.record.pushToStartToken else {
                selection.devicesWithoutToken.append(device.id)
                continue
            }
            guard seen.insert(token).inserted else { continue }
            selection.targets.append(
                DeliveryTarget(
                    deviceID: device.id, token: token, recordedEnvironment: device.record.environment,
                    tokenKind: .pushToStart, timeZone: device.record.timeZone))
        }
        selection.targets += match.unreadable.map { unusableTarget($0, tokenKind: .pushToStart) }
        return selection
    }

    /// The registered devices a selection names; every named device id must be registered and, with
    /// `strictGroups`, every named group must have a device.
    private static func registeredDevices(
        registry: any RegistryStore, deviceIDs: [String], groups: [String],
        strictGroups: Bool
    ) throws -> DeviceSelection.Match {
        let match = try registry.devices(DeviceSelection(deviceIDs: deviceIDs, groups: groups))
        var missing: [String] = []
        if !match.unknownDeviceIDs.isEmpty { missing.append("no device " + quotedList(match.unknownDeviceIDs)) }
        if strictGroups, !match.emptyGroups.isEmpty {
            missing.append("no device in group " + quotedList(match.emptyGroups))
        }
        if !missing.isEmpty {
            throw DeliverySelectionError(
                message: missing.joined(separator: " and ") + " in \(registry.location) (see register-apns list)")
        }
        return match
    }

    private static func quotedList(_ names: [String]) -> String {
        names.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

extension RegistryStore {
    /// `DeliveryTargets.select` with the audience's device ids, groups, group strictness and schedule.
    package func targets(for audience: PushSender.Audience, at now: Date) throws -> [DeliveryTarget] {
        try DeliveryTargets.select(
            registry: self, deviceIDs: audience.deviceIDs, groups: audience.groups,
            strictGroups: audience.strictGroups, due: audience.due, at: now)
    }

    /// `DeliveryTargets.selectPushToStart` with the audience's device ids, groups and group strictness.
    package func pushToStartTargets(for audience: PushSender.Audience) throws -> PushToStartSelection {
        try DeliveryTargets.selectPushToStart(
            registry: self, deviceIDs: audience.deviceIDs, groups: audience.groups,
            strictGroups: audience.strictGroups)
    }

    /// `RegistryBookkeeping.apply` to this registry.
    package func record(_ results: inout [DeliveryResult]) throws {
        try RegistryBookkeeping.apply(&results, to: self)
    }
}
