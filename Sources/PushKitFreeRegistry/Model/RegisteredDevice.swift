#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A device id with its record: one row of `register-apns list`, one target of `send-push`.
package struct RegisteredDevice: Sendable {
    /// The app's id for this install.
    package let id: String
    /// What the registry knows about the device. Changing it drops `storedJSON`.
    package var record: DeviceRecord {
        get { box.record }
        set {
            box = RecordBox(newValue)
            storedJSON = nil
        }
    }
    /// The record, behind a reference: a device is then 40 bytes rather than about 280, so
    /// inserting into or removing from the registry's sorted array of 100,000 devices moves 4 MB,
    /// not 28, and copying a device retains one reference rather than every field of its record.
    private var box: RecordBox
    /// The record's bytes as read from the state file: written back verbatim while `record` is
    /// unchanged, so a registration rewrites one line of a large file rather than re-encoding all.
    /// A slice of the file's bytes (it keeps them alive, it does not copy them).
    var storedJSON: Data?

    /// A device not read from a file (so it is always encoded when written).
    package init(id: String, record: DeviceRecord) {
        self.id = id
        self.box = RecordBox(record)
        self.storedJSON = nil
    }

    init(id: String, record: DeviceRecord, storedJSON: Data?) {
        self.id = id
        self.box = RecordBox(record)
        self.storedJSON = storedJSON
    }

    /// An immutable record; a change makes a new box, so copies of a device never share a change.
    private final class RecordBox: Sendable {
        let record: DeviceRecord
        init(_ record: DeviceRecord) { self.record = record }
    }
}

extension RegisteredDevice {
    /// Whether `other` holds the same record: the same box (a copy never changed) without
    /// comparing a field, else field by field.
    func hasSameRecord(as other: RegisteredDevice) -> Bool {
        box === other.box || box.record == other.box.record
    }
}

extension RegisteredDevice: Equatable {
    /// Devices are equal when their ids and records are; how they were stored does not matter.
    package static func == (lhs: RegisteredDevice, rhs: RegisteredDevice) -> Bool {
        lhs.id == rhs.id && lhs.record == rhs.record
    }
}
