#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Chooses whom a run goes to: every registered device by default, `--device`/`--group` to narrow
/// the registry, or `--token` to bypass it.
public enum DeliveryTargets {
    /// - Parameter strictGroups: a named group that no device belongs to is an error, as an unknown
    ///   device id is (a person naming a group expects it to exist); when false (an agent's group that
    ///   nobody subscribed to yet) it selects nothing.
    /// - Throws: `DeviceTokenError` (65) for a malformed `--token`, `RegistryError` for an unreadable
    ///   registry, `DeliverySelectionError` (65) for a device id that is not registered or, with
    ///   `strictGroups`, a group without devices.
    /// - Parameter due: a scheduled send: of the selected devices, only those whose send is due at
    ///   `now` in their own zone (see `DueSchedule`).
    public static func select(
        registry: any RegistryStore, deviceIDs: [String], groups: [String], tokens: [String],
        strictGroups: Bool = false, due: DueSchedule? = nil, at now: Date = Date()
    ) throws -> [DeliveryTarget] {
        if !tokens.isEmpty {
            var seen = Set<DeviceToken>()
            return try tokens.compactMap { text in
                let token = try DeviceToken(validating: text)
                return seen.insert(token).inserted
                    ? DeliveryTarget(deviceID: nil, token: token, recordedEnvironment: nil) : nil
            }
        }
        var zones = TimeZoneCache()
        return try registeredDevices(
            registry: registry, deviceIDs: deviceIDs, groups: groups,
            strictGroups: strictGroups
        ).compactMap { device in
            var scheduledDay: LocalDate?
            if let due {
                guard let day = due.dueDay(for: device.record, at: now, zones: &zones) else { return nil }
                scheduledDay = day
            }
            return DeliveryTarget(
                deviceID: device.id, token: device.record.token, recordedEnvironment: device.record.environment,
                timeZone: device.record.timeZone, scheduledDay: scheduledDay)
        }
    }

    /// Whom a Live Activity start goes to when no `--token` is given.
    public struct PushToStartSelection: Sendable, Equatable {
        /// One target per distinct push-to-start token of the selected devices, in device id order,
        /// addressed to the device's recorded environment (the app build that made the token
        /// registered both; when none is recorded, BadDeviceToken tries the other one as usual).
        public var targets: [DeliveryTarget]
        /// Selected devices that have no push-to-start token, sorted; they are not sent to.
        public var devicesWithoutToken: [String]
    }

    /// The push-to-start tokens of the registered devices `deviceIDs` and `groups` select (every
    /// device when both are empty).
    /// - Throws: `RegistryError` for an unreadable registry, `DeliverySelectionError` (65) for a
    ///   device id that is not registered or, with `strictGroups`, a group without devices.
    public static func selectPushToStart(
        registry: any RegistryStore, deviceIDs: [String], groups: [String],
        strictGroups: Bool = false
    ) throws -> PushToStartSelection {
        var selection = PushToStartSelection(targets: [], devicesWithoutToken: [])
        var seen = Set<DeviceToken>()
        for device in try registeredDevices(
            registry: registry, deviceIDs: deviceIDs, groups: groups,
            strictGroups: strictGroups)
        {
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
        return selection
    }

    /// The registered devices a selection names; every named device id must be registered and, with
    /// `strictGroups`, every named group must have a device.
    private static func registeredDevices(
        registry: any RegistryStore, deviceIDs: [String], groups: [String],
        strictGroups: Bool
    ) throws -> [RegisteredDevice] {
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
        return match.devices
    }

    private static func quotedList(_ names: [String]) -> String {
        names.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

/// A `--device` that the registry does not hold.
public struct DeliverySelectionError: PushKitError {
    public let message: String
    public var exitStatus: ExitStatus { .dataError }
    public var description: String { message }
}
