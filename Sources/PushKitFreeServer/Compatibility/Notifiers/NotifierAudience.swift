import PushKitFreeCore
import PushKitFreeRegistry

/// Whom an ntfy topic or a Bark key sends to: the registered device with that id, or the devices of
/// the group of that name. Shared by both protocols, so a name means the same in each.
///
/// The registry keeps a name a device id or a group, never both (`RegisteredDevices+Names.swift`),
/// so the lookup has one answer; a registry edited by hand that holds both is refused (409) rather
/// than guessed at, since either guess sends the notification to devices the sender did not mean.
package enum NotifierAudience {
    /// What a topic or key may be: 1 to 64 letters, digits, `-` and `_` (ntfy's own rule for
    /// topics), so that it is one path segment as written.
    package static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// Checks `name` as a topic or key (400 naming `what`, or 404 for one of `reservedNames`, the
    /// first path segments of the server's own routes).
    package static func validate(_ name: String, as what: String, reservedNames: Set<String>) throws(EndpointError) {
        guard isValidName(name) else {
            throw .badRequest(
                "\(what) \"\(AccessLog.maskedPath(name))\" must be 1 to 64 letters, digits, - or _ "
                    + "(a device id or a group name)")
        }
        if reservedNames.contains(name) {
            throw .notFound("\(what) \"\(name)\" is reserved for the server's own routes; name another group")
        }
    }

    /// The audience `names` address in `devices`: each a device id or a group with at least one
    /// device. Before anything is sent: 404 naming the first that is neither, 409 naming the first
    /// that is both.
    package static func audience(
        _ names: [String], in devices: RegisteredDevices, what: String
    ) throws(EndpointError) -> PushSender.Audience {
        var deviceIDs: [String] = []
        var groups: [String] = []
        for name in names {
            let isDevice = devices.isDevice(name)
            let isGroup = devices.isGroup(name)
            if isDevice, isGroup {
                throw .conflict(
                    "\(what) \"\(name)\" names both a device and a group in the registry, so nothing was sent: "
                        + "a name must be one or the other (rename the device or the group)")
            } else if isDevice {
                if !deviceIDs.contains(name) { deviceIDs.append(name) }
            } else if isGroup {
                if !groups.contains(name) { groups.append(name) }
            } else {
                throw .notFound("\(what) \"\(name)\" names no registered device and no group with a device")
            }
        }
        return PushSender.Audience(deviceIDs: deviceIDs, groups: groups)
    }

    /// Whether a send went well enough to answer success: APNs took it for at least one device,
    /// or the delivery policy held it back for every device (quiet hours, the frequency cap: the
    /// server did what it was told). Otherwise the 502 naming each device's reason, so that a
    /// client that looks only at the status (Apprise, Uptime Kuma) reports the failure.
    package static func failure(of report: DeliveryReport) -> EndpointError? {
        if report.delivered > 0 || report.skipped == report.results.count { return nil }
        let reasons = report.results.map { result in
            "\(result.target.deviceID ?? "a device"): \(EndpointJSON.reason(of: result))"
        }
        return EndpointError(
            status: 502,
            "APNs took the notification for none of the \(report.results.count) devices: "
                + reasons.joined(separator: "; "))
    }
}
