import PushKitFreeCore
import PushKitFreeRegistry

/// What `list_devices` returns: each device's id, name, model, groups, masked token and transport, the
/// groups in use, and a sentence an agent can relay.
package struct DeviceList: Sendable {
    /// "2 devices: phone (Ann's iPhone; groups: family), ipad."
    package let text: String
    /// `count`, `groups` and `devices`.
    package let structured: JSONValue

    /// The listing of `devices`, by id; only those in `group` when one is named.
    package init(_ devices: [RegisteredDevice], group: String?) {
        let listed = devices.filter { group == nil || $0.record.groups.contains(group ?? "") }.sorted { $0.id < $1.id }
        let groups = Set(devices.flatMap(\.record.groups)).sorted()
        let entries: [JSONValue] = listed.map { device in
            let record = device.record
            var members: [String: JSONValue] = [
                "id": .string(device.id),
                "name": record.name.map(JSONValue.string) ?? .null,
                "model": record.model.map(JSONValue.string) ?? .null,
                "groups": .array(record.groups.map(JSONValue.string)),
                "token": .string(record.token.masked),
                "transport": .string(record.token.transport.rawValue),
                "environment": record.environment.map { .string($0.rawValue) } ?? .null,
            ]
            if let seen = record.lastRegisteredAt {
                members["last_registered"] = .string(ISO8601Timestamp.format(seen))
            }
            return .object(members)
        }
        structured = .object([
            "count": .number(Double(listed.count)),
            "groups": .array(groups.map(JSONValue.string)),
            "devices": .array(entries),
        ])
        let scope = group.map { " in group \"\(TerminalText.field($0))\"" } ?? ""
        guard !listed.isEmpty else {
            text =
                devices.isEmpty
                ? "No devices are registered: the app registers itself when it starts (register-apns add for a test)."
                : "No devices\(scope); the groups are: \(groups.isEmpty ? "none" : groups.joined(separator: ", "))."
            return
        }
        let described = listed.map { device in
            var details: [String] = []
            if let name = device.record.name { details.append(TerminalText.field(name)) }
            if !device.record.groups.isEmpty {
                details.append("groups: " + device.record.groups.map { TerminalText.field($0) }.joined(separator: ", "))
            }
            let id = TerminalText.field(device.id)
            return details.isEmpty ? id : "\(id) (\(details.joined(separator: "; ")))"
        }
        let count = listed.count == 1 ? "1 device" : "\(listed.count) devices"
        text = "\(count)\(scope): \(described.joined(separator: ", "))."
    }
}
