#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// How `register-apns list` shows devices: an aligned table for people, JSON Lines for programs.
package enum DeviceListing {
    /// A table with a header row, one device per line, columns padded to align.
    ///
    /// Tokens are masked to their first 8 and last 4 hex digits unless `fullTokens`; unknown values
    /// show as `-`; times are UTC to the second. A PUSH-TO-START column follows TOKEN when any device
    /// has a push-to-start token, and a TRANSPORT column (`apns` or `fcm`) right after TOKEN when any
    /// device holds an FCM token (so a registry of APNs devices lists as it always did). Ids, names, models and other free text are escaped and cut to
    /// `TerminalText.displayLimit` characters (`TerminalText.field`): a line break, an escape sequence
    /// or a bidirectional override in one can neither break the table nor drive the terminal.
    /// A CONTENT KEY column comes last when any device has a content key: `yes` or `-`, the key
    /// itself (base64) only with `contentKeys`.
    /// Devices whose records cannot be read (`unreadable`) are listed among the others, in id order,
    /// with what could be read (token, groups) and an UNREADABLE column, last, saying what is wrong.
    package static func table(
        _ devices: [RegisteredDevice], unreadable: [UnreadableDevice] = [], fullTokens: Bool, contentKeys: Bool = false
    ) -> String {
        let showsPushToStart = devices.contains { $0.record.pushToStartToken != nil }
        let showsContentKey = devices.contains { $0.record.contentKey != nil }
        let showsTransport =
            devices.contains { $0.record.token.transport != .apns }
            || unreadable.contains { $0.token.map { $0.transport != .apns } ?? false }
        var header = ["DEVICE ID", "TOKEN", "ENVIRONMENT", "NAME", "MODEL", "OS", "APP", "GROUPS", "LAST SEEN"]
        if showsPushToStart { header.insert("PUSH-TO-START", at: 2) }
        if showsTransport { header.insert("TRANSPORT", at: 2) }
        if showsContentKey { header.append("CONTENT KEY") }
        if !unreadable.isEmpty { header.append("UNREADABLE") }
        var rows = devices.map { device -> [String] in
            let record = device.record
            let text = { (value: String?) in value.map { TerminalText.field($0) } ?? "-" }
            var row = [
                TerminalText.field(device.id),
                fullTokens ? record.token.text : record.token.masked,
                record.environment?.rawValue ?? "-",
                text(record.name),
                text(record.model),
                text(record.osVersion),
                text(record.appVersion),
                record.groups.isEmpty ? "-" : TerminalText.field(record.groups.joined(separator: ",")),
                record.lastRegisteredAt.map(secondsTimestamp) ?? "-",
            ]
            if showsPushToStart {
                row.insert(record.pushToStartToken.map { fullTokens ? $0.text : $0.masked } ?? "-", at: 2)
            }
            if showsTransport { row.insert(record.token.transport.rawValue, at: 2) }
            if showsContentKey { row.append(record.contentKey.map { contentKeys ? $0.base64 : "yes" } ?? "-") }
            if !unreadable.isEmpty { row.append("-") }
            return row
        }
        if !unreadable.isEmpty {
            let width = header.count
            rows += unreadable.map { device -> [String] in
                var row = [String](repeating: "-", count: width)
                row[0] = TerminalText.field(device.id)
                row[1] = device.token.map { fullTokens ? $0.text : $0.masked } ?? "-"
                if showsTransport, let token = device.token { row[2] = token.transport.rawValue }
                row[header.firstIndex(of: "GROUPS") ?? 0] =
                    device.groups.isEmpty ? "-" : TerminalText.field(device.groups.joined(separator: ","))
                row[width - 1] = TerminalText.field(device.problem)
                return row
            }
            rows.sort { $0[0] < $1[0] }
        }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        var output = ""
        for row in [header] + rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                if column == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                }
            }
            output += line + "\n"
        }
        return output
    }

    /// One compact JSON object per device and line: `device_id`, then the fields as in the state
    /// file (full tokens; `--full` only concerns the table; `transport` always, `apns` or `fcm`),
    /// without `content_key` unless `contentKeys`.
    package static func jsonLines(_ devices: [RegisteredDevice], contentKeys: Bool = false) -> [UInt8] {
        var writer = JSONWriter(capacity: devices.count * 400)
        for device in devices {
            device.record.write(to: &writer, deviceID: device.id, contentKey: contentKeys)
            writer.raw(byte: UInt8(ascii: "\n"))
        }
        return writer.bytes
    }

    /// `2024-05-01T12:00:00Z`: the stored timestamp without its milliseconds.
    private static func secondsTimestamp(_ date: Date) -> String {
        let text = ISO8601Timestamp.format(date)
        return String(text.prefix(19)) + "Z"
    }

}
