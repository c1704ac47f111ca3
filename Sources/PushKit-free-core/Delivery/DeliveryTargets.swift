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
        let registry = DeviceRegistry(path: configuration.stateFile.value)
        let match = try registry.devices(DeviceSelection(deviceIDs: deviceIDs, groups: groups))
        if !match.unknownDeviceIDs.isEmpty {
            throw DeliverySelectionError(message: "no device \(match.unknownDeviceIDs.map { "\"\($0)\"" }.joined(separator: ", ")) in \(registry.path) (see register-apns list)")
        }
        return match.devices.map { DeliveryTarget(deviceID: $0.id, token: $0.record.token, recordedEnvironment: $0.record.environment) }
    }
}

/// A `--device` that the registry does not hold.
public struct DeliverySelectionError: PushKitError {
    public let message: String
    public var exitStatus: ExitStatus { .dataError }
    public var description: String { message }
}
