#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Living beside the server the tools replace, which keeps writing the flat map
/// `{"<device id>": "<token>"}` with no lock (`tokens = json.loads(...); tokens[id] = token;
/// write_text(json.dumps(tokens))`) and may read it itself.
///
/// The decision: a flat map stays a flat map. What the tools learn that it cannot hold (environment,
/// name, groups, times, push-to-start token, top-level members such as `agents`) goes to a sidecar,
/// a version 1 registry of the same devices. The flat map says which devices exist and their current
/// tokens; the sidecar adds the details of each, applied only while the token it recorded is still
/// the device's token (a token the other server changed keeps the install's name, model, versions,
/// groups and first registration, and resets the environment, as a registration with a new token
/// does). A device only in the sidecar is kept too: the other server's stale read-modify-write may
/// have dropped it from the flat map.
///
/// A version 1 file holding registrations at its top level (that server still writing after an
/// earlier release converted the file) adopts them, and is written back as a flat map with sidecar,
/// so that server's own readers see devices again rather than `version` and `devices`.
///
/// Retirement: once that server is stopped, `register-apns convert` writes the flat map and sidecar
/// as one version 1 file (`StateFileRegistry.convertToVersionOne`, the flat map kept as `.v0.bak`);
/// after every user has converted, this file, `StateFileRegistry+FlatMap.swift`, the
/// `.legacyFlatMap` and `.versionedWithLegacyEntries` forms and the late-write adoption in
/// `StateFileRegistry.write` can go, a file still in the old form then refused with a message naming
/// `convert` from an older release.
extension RegisteredDevices {
    /// Adopts a top-level registration `deviceID` → `token` found in a version 1 file: it is newer
    /// than the record of that id in `devices` (the flat writer wrote it after our last write).
    ///
    /// The same token keeps the record as it is; another token replaces it as `register` would
    /// (see `DeviceRecord.replacingToken(_:)`). Other device ids holding the token are left alone,
    /// as in a flat map.
    mutating func adoptLegacyEntry(deviceID: String, token: DeviceToken) {
        guard let existing = self[deviceID] else {
            self[deviceID] = DeviceRecord(token: token)
            return
        }
        if existing.token != token { self[deviceID] = existing.replacingToken(token) }
    }

    /// The registry a flat map and its sidecar hold together.
    ///
    /// - Parameters:
    ///   - flatMap: the state file as read (a flat map, or empty); its devices and tokens win.
    ///   - sidecar: the sidecar as read: details of the devices, and top-level members.
    /// - Returns: a registry stored as `.legacyFlatMap`, with no changes counted, whose unchanged
    ///   sidecar records are written back byte for byte.
    package static func combining(flatMap: RegisteredDevices, sidecar: RegisteredDevices) -> RegisteredDevices {
        var combined = sidecar
        // A sidecar record that cannot be read stays so: the flat map's token alone would lose it.
        for device in flatMap.devices where combined.unreadableDevice(device.id) == nil {
            if let details = combined[device.id] {
                if details.token != device.record.token {
                    combined[device.id] = details.replacingToken(device.record.token)
                }
            } else {
                combined[device.id] = device.record
            }
        }
        combined.storedFormat = .legacyFlatMap
        combined.adoptedLegacyEntries = []
        combined.markUnchanged()
        return combined
    }

    /// The flat map `{"<device id>": "<token>"}` of the devices, one per line sorted by id: what the
    /// server of the flat map reads with `json.loads` and iterates as device id → token.
    package func flatMapBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 8 + devices.count * 100)
        writer.raw("{")
        for (index, device) in devices.enumerated() {
            writer.raw(index == 0 ? "\n  " : ",\n  ")
            writer.string(device.id)
            writer.raw(": ")
            writer.string(device.record.token.text)
        }
        writer.raw(devices.isEmpty ? "}\n" : "\n}\n")
        return writer.bytes
    }
}

extension DeviceRecord {
    /// This record with `token`, as a registration with a new token changes it: what the app said
    /// about the install (name, model, versions, groups, times) stays, the environment is reset to
    /// unknown (a new token may belong to the other environment). The same token: unchanged. An FCM
    /// token also drops the push-to-start token: only an APNs device starts Live Activities.
    package func replacingToken(_ token: DeviceToken) -> DeviceRecord {
        guard token != self.token else { return self }
        var record = self
        record.token = token
        record.environment = nil
        if token.transport == .fcm { record.pushToStartToken = nil }
        return record
    }
}
