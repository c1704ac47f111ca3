#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A daily window, in a time zone, during which alerts should not make noise: config
/// `"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "Europe/Berlin"}`.
///
/// With `"device_timezone": true` the window is kept in each device's own zone when the registry
/// knows it (the app sent `timezone`), so a traveller's phone keeps its quiet night; `timezone`
/// (else the system's zone) is then the zone of devices whose zone is not known.
///
/// The window starts at `start` (inclusive) and ends at `end` (exclusive); a window whose end is
/// earlier than its start runs over midnight. Equal start and end would be empty or the whole day,
/// so they are refused.
package struct QuietHours: Sendable {
    /// Minutes after local midnight.
    package let start: Int
    /// Minutes after local midnight.
    package let end: Int
    /// The zone of the window; with `inDeviceZone`, of devices whose zone is not known.
    package let zone: any LocalTimeZone
    /// Whether the window is kept in each device's own zone when it is known.
    package let inDeviceZone: Bool

    /// A window from `start` to `end`, minutes after local midnight (0..<1440), taken as given.
    package init(start: Int, end: Int, zone: any LocalTimeZone, inDeviceZone: Bool = false) {
        self.start = start
        self.end = end
        self.zone = zone
        self.inDeviceZone = inDeviceZone
    }

    /// Reads the config file's `quiet_hours` object.
    /// - Parameter makeZone: turns the `timezone` member (nil: absent) into a zone.
    /// - Throws: `ConfigurationError` (78) naming the member at fault.
    package init(
        configValue value: JSONValue, in path: String,
        makeZone: (String?) throws(ConfigurationError) -> any LocalTimeZone
    ) throws(ConfigurationError) {
        guard let object = value.objectValue else {
            throw ConfigurationError(
                "quiet_hours in \(path) must be an object like {\"start\": \"22:00\", \"end\": \"07:00\"}, not a \(value.typeName)"
            )
        }
        func minute(_ key: String) throws(ConfigurationError) -> Int {
            guard let text = object[key]?.stringValue else {
                throw ConfigurationError("quiet_hours.\(key) in \(path) must be a time like \"22:00\"")
            }
            guard let minute = Self.minuteOfDay(text) else {
                throw ConfigurationError(
                    "quiet_hours.\(key) in \(path) must be HH:MM between 00:00 and 23:59, not \"\(text)\"")
            }
            return minute
        }
        let start = try minute("start"), end = try minute("end")
        if start == end {
            throw ConfigurationError(
                "quiet_hours in \(path) starts and ends at the same time; remove it, or give a window")
        }
        let zoneName: String?
        switch object["timezone"] {
        case nil, .null?: zoneName = nil
        case .string(let name)?: zoneName = name.isEmpty ? nil : name
        case let other?:
            throw ConfigurationError(
                "quiet_hours.timezone in \(path) must be a string like \"Europe/Berlin\", not a \(other.typeName)")
        }
        var inDeviceZone = false
        switch object["device_timezone"] {
        case nil, .null?: break
        case .bool(let flag)?: inDeviceZone = flag
        case let other?:
            throw ConfigurationError(
                "quiet_hours.device_timezone in \(path) must be true or false, not \(other.serializedString())")
        }
        for key in object.keys where !["start", "end", "timezone", "device_timezone"].contains(key) {
            throw ConfigurationError(
                "quiet_hours in \(path) has an unknown member \"\(key)\" (start, end, timezone, device_timezone)")
        }
        self.init(start: start, end: end, zone: try makeZone(zoneName), inDeviceZone: inDeviceZone)
    }

    /// Parses `HH:MM` (24-hour, `7:05` accepted) into minutes after midnight.
    package static func minuteOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return hour * 60 + minute
    }

    /// Whether `date` falls inside the window, in its zone.
    package func contains(_ date: Date) -> Bool {
        contains(date, in: zone)
    }

    /// Whether `date` falls inside the window kept in `zone`.
    package func contains(_ date: Date, in zone: any LocalTimeZone) -> Bool {
        let minute = zone.minuteOfDay(at: date)
        return start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
    }

    /// "22:00-07:00 Europe/Berlin", for reasons and messages; "22:00-07:00 in the device's zone (else
    /// Europe/Berlin)" when kept in each device's zone.
    package var description: String {
        func format(_ minute: Int) -> String {
            let hour = minute / 60, rest = minute % 60
            return (hour < 10 ? "0" : "") + String(hour) + ":" + (rest < 10 ? "0" : "") + String(rest)
        }
        let window = "\(format(start))-\(format(end))"
        return inDeviceZone ? "\(window) in the device's zone (else \(zone.name))" : "\(window) \(zone.name)"
    }
}
