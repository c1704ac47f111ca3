/// One device a run delivers to.
public struct DeliveryTarget: Sendable, Equatable {
    /// The registry's device id; `nil` for a token given with `--token` (not in the registry).
    public let deviceID: String?
    public let token: DeviceToken
    /// The environment recorded in the registry; `nil` when not yet known.
    public let recordedEnvironment: APNsEnvironment?

    public init(deviceID: String?, token: DeviceToken, recordedEnvironment: APNsEnvironment?) {
        self.deviceID = deviceID
        self.token = token
        self.recordedEnvironment = recordedEnvironment
    }
}
