#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `register-apns list` shows devices: an aligned table for people, JSON Lines for programs.
public enum DeviceListing {
    /// A table with a header row, one device per line, columns padded to align.
    ///
    /// Tokens are masked to their first 8 and last 4 hex digits unless `fullTokens`; unknown values
    /// show as `-`; times are UTC to the second. A PUSH-TO-START column follows TOKEN when any
    /// device has a push-to-start token.
    public static func table(_ devices: [RegisteredDevice], fullTokens: Bool) -> String {
        let showsPushToStart = devices.contains { $0.record.pushToStartToken != nil }
        var header = ["DEVICE ID", "TOKEN", "ENVIRONMENT", "NAME", "MODEL", "OS", "APP", "GROUPS", "LAST SEEN"]
        if showsPushToStart { header.insert("PUSH-TO-START", at: 2) }
        let rows = devices.map { device -> [String] in
            let record = device.record
            var row = [
                device.id,
                fullTokens ? record.token.hex : record.token.masked,
                record.environment?.rawValue ?? "-",
                record.name ?? "-",
                record.model ?? "-",
                record.osVersion ?? "-",
                record.appVersion ?? "-",
                record.groups.isEmpty ? "-" : record.groups.joined(separator: ","),
                record.lastRegisteredAt.map(secondsTimestamp) ?? "-",
            ]
            if showsPushToStart {
                row.insert(record.pushToStartToken.map { fullTokens ? $0.hex : $0.masked } ?? "-", at: 2)
            }
            return row.map(singleLine)
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
    /// file (full tokens; `--full` only concerns the table).
    public static func jsonLines(_ devices: [RegisteredDevice]) -> [UInt8] {
        var writer = JSONWriter(capacity: devices.count * 400)
        for device in devices {
            device.record.write(to: &writer, deviceID: device.id)
            writer.raw(byte: UInt8(ascii: "\n"))
        }
        return writer.bytes
    }

    /// `2024-05-01T12:00:00Z`: the stored timestamp without its milliseconds.
    private static func secondsTimestamp(_ date: Date) -> String {
        let text = ISO8601Timestamp.format(date)
        return String(text.prefix(19)) + "Z"
    }

    /// Names and ids are free text; a line break or tab inside one would break the table.
    private static func singleLine(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0 == "\t" }) else { return text }
        return String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
