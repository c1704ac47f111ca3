/// Chooses whom a run goes to: every registered device by default, `--device`/`--group` to narrow
/// the registry, or `--token` to bypass it.
public enum DeliveryTargets {
    /// - Throws: `DeviceTokenError` (65) for a malformed `--token`, `RegistryError` for an unreadable
    ///   registry, `DeliverySelectionError` (65) for a device id that is not registered.
    public static func select(configuration: Configuration, deviceIDs: [String], groups: [String], tokens: [String]) throws -> [DeliveryTarget] {
        if !tokens.isEmpty {
            var seen = Set<DeviceToken>()
            return try tokens.compactMap { text in
                let token = try DeviceToken(validating: text)
                return seen.insert(token).inserted ? DeliveryTarget(deviceID: nil, token: token, recordedEnvironment: nil) : nil
            }
        }
        return try registeredDevices(configuration: configuration, deviceIDs: deviceIDs, groups: groups).map {
            DeliveryTarget(deviceID: $0.id, token: $0.record.token, recordedEnvironment: $0.record.environment)
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
    ///   device id that is not registered.
    public static func selectPushToStart(configuration: Configuration, deviceIDs: [String], groups: [String]) throws -> PushToStartSelection {
        var selection = PushToStartSelection(targets: [], devicesWithoutToken: [])
        var seen = Set<DeviceToken>()
        for device in try registeredDevices(configuration: configuration, deviceIDs: deviceIDs, groups: groups) {
            guard let token = device.record.pushToStartToken else {
                selection.devicesWithoutToken.append(device.id)
                continue
            }
            guard seen.insert(token).inserted else { continue }
            selection.targets.append(DeliveryTarget(deviceID: device.id, token: token, recordedEnvironment: device.record.environment, tokenKind: .pushToStart))
        }
        return selection
    }

    /// The registered devices a selection names; every named device id must be registered.
    private static func registeredDevices(configuration: Configuration, deviceIDs: [String], groups: [String]) throws -> [RegisteredDevice] {
        let registry = DeviceRegistry(path: configuration.stateFile.value)
        let match = try registry.devices(DeviceSelection(deviceIDs: deviceIDs, groups: groups))
        if !match.unknownDeviceIDs.isEmpty {
            throw DeliverySelectionError(message: "no device \(match.unknownDeviceIDs.map { "\"\($0)\"" }.joined(separator: ", ")) in \(registry.path) (see register-apns list)")
        }
        return match.devices
    }
}

/// A `--device` that the registry does not hold.
public struct DeliverySelectionError: PushKitError {
    public let message: String
    public var exitStatus: ExitStatus { .dataError }
    public var description: String { message }
}
