/// A device id with its record: one row of `register-apns list`, one target of `send-push`.
public struct RegisteredDevice: Sendable, Equatable {
    /// The app's id for this install.
    public let id: String
    public var record: DeviceRecord

    public init(id: String, record: DeviceRecord) {
        self.id = id
        self.record = record
    }
}
