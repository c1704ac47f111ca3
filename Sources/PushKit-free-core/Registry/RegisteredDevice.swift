#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A device id with its record: one row of `register-apns list`, one target of `send-push`.
public struct RegisteredDevice: Sendable {
    /// The app's id for this install.
    public let id: String
    /// What the registry knows about the device. Changing it drops `storedJSON`.
    public var record: DeviceRecord {
        didSet { storedJSON = nil }
    }
    /// The record's bytes as read from the state file: written back verbatim while `record` is
    /// unchanged, so a registration rewrites one line of a large file rather than re-encoding all.
    /// A slice of the file's bytes (it keeps them alive, it does not copy them).
    var storedJSON: Data?

    /// A device not read from a file (so it is always encoded when written).
    public init(id: String, record: DeviceRecord) {
        self.id = id
        self.record = record
        self.storedJSON = nil
    }

    init(id: String, record: DeviceRecord, storedJSON: Data?) {
        self.id = id
        self.record = record
        self.storedJSON = storedJSON
    }
}

extension RegisteredDevice: Equatable {
    /// Devices are equal when their ids and records are; how they were stored does not matter.
    public static func == (lhs: RegisteredDevice, rhs: RegisteredDevice) -> Bool {
        lhs.id == rhs.id && lhs.record == rhs.record
    }
}
