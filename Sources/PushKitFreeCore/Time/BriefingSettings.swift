#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When one device wants its daily briefing: a recurring local time of day in an IANA time zone
/// (not an instant), as the Ember app's `briefing_config` message sets it, and the local day it was
/// last sent, so that a run every minute sends it once a day.
///
/// Stored on the device in the state file as
/// `"briefing": {"enabled": true, "time": "07:00", "timezone": "America/New_York", "sources": [...],
/// "last_sent_on": "2026-11-24"}`.
package struct BriefingSettings: Sendable, Equatable {
    /// Whether the device wants a briefing at all.
    package var enabled: Bool
    /// The local time, in minutes after midnight (0..<1440).
    package var minuteOfDay: Int
    /// The IANA zone the time is in (`America/New_York`).
    package var timeZone: String
    /// What the app asked the briefing to contain (`weather`, `calendar`, ...), passed on as given.
    package var sources: [String]
    /// The last device-local day whose briefing is done: sent, or already past when the device
    /// first set its briefing; `nil` before either.
    package var lastSentOn: LocalDate?

    /// Settings as given: enabled unless said otherwise, never sent yet.
    package init(
        enabled: Bool = true, minuteOfDay: Int, timeZone: String, sources: [String] = [], lastSentOn: LocalDate? = nil
    ) {
        self.enabled = enabled
        self.minuteOfDay = minuteOfDay
        self.timeZone = timeZone
        self.sources = sources
        self.lastSentOn = lastSentOn
    }

    /// The time as `HH:MM`.
    package var time: String { Self.format(minuteOfDay: minuteOfDay) }

    /// Whether the briefing is due at `now` in `zone` (the zone `timeZone` names): enabled, the local
    /// time of day is at or past `minuteOfDay`, and it was not yet sent on this local day.
    ///
    /// A run that is skipped or late still sends the day's briefing, later that day. On the day
    /// clocks spring forward past the time (02:30 on a day that skips from 02:00 to 03:00), it is
    /// due from 03:00; on the day they fall back, a time that occurs twice is sent at the first.
    package func isDue(at now: Date, in zone: any LocalTimeZone) -> Bool {
        guard enabled, zone.minuteOfDay(at: now) >= minuteOfDay else { return false }
        guard let lastSentOn else { return true }
        return lastSentOn < zone.localDate(at: now)
    }

    /// `HH:MM` of minutes after midnight.
    package static func format(minuteOfDay: Int) -> String {
        let hour = minuteOfDay / 60, minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}

/// Why a briefing setting or a time zone name was refused; `message` names the member and the value.
package struct BriefingSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was refused, naming the member and the value.
    package let message: String

    /// An error with `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

extension BriefingSettings {
    /// The settings a `briefing_config` message (or the state file's `briefing` object) carries:
    /// `time` (`HH:MM`, required), `timezone` (an IANA zone, required), `enabled` (default true),
    /// `sources` (strings, default none), `last_sent_on` (`YYYY-MM-DD`, the state file's). Members
    /// this version does not know are ignored (the message's `type`, say).
    /// - Parameter zoneExists: whether a zone name is one of the tz database's; the tools pass
    ///   `SystemTimeZone.exists`.
    /// - Throws: `BriefingSettingsError` naming the member that is missing or wrong.
    package init(
        members: [String: JSONValue], zoneExists: (String) -> Bool = SystemTimeZone.exists
    ) throws(BriefingSettingsError) {
        switch members["enabled"] {
        case nil, .null?: enabled = true
        case .bool(let value)?: enabled = value
        case let other?:
            throw BriefingSettingsError("\"enabled\" must be true or false, not \(other.serializedString())")
        }
        guard let timeValue = members["time"], timeValue != .null else {
            throw BriefingSettingsError("\"time\" is missing: give the local time of day, like \"07:00\"")
        }
        guard let text = timeValue.stringValue, let minute = QuietHours.minuteOfDay(text) else {
            throw BriefingSettingsError(
                "\"time\" must be a local time of day HH:MM between 00:00 and 23:59, not \(timeValue.serializedString())"
            )
        }
        minuteOfDay = minute
        guard let zoneValue = members["timezone"], zoneValue != .null else {
            throw BriefingSettingsError("\"timezone\" is missing: give an IANA time zone, like \"America/New_York\"")
        }
        timeZone = try Self.validatedTimeZone(zoneValue, zoneExists: zoneExists)
        switch members["sources"] {
        case nil, .null?: sources = []
        case .array(let elements)?:
            sources = try elements.map { element throws(BriefingSettingsError) in
                guard let source = element.stringValue else {
                    throw BriefingSettingsError(
                        "\"sources\" must be an array of strings, not \(element.serializedString()) in it")
                }
                return source
            }
        case let other?:
            throw BriefingSettingsError("\"sources\" must be an array of strings, not \(other.serializedString())")
        }
        switch members["last_sent_on"] {
        case nil, .null?: lastSentOn = nil
        case let value?:
            guard let date = value.stringValue.flatMap(LocalDate.init) else {
                throw BriefingSettingsError(
                    "\"last_sent_on\" must be a date YYYY-MM-DD, not \(value.serializedString())")
            }
            lastSentOn = date
        }
    }

    /// A `timezone` member's value checked against the tz database.
    /// - Throws: `BriefingSettingsError` for a value that is not a string naming a known zone.
    package static func validatedTimeZone(
        _ value: JSONValue, zoneExists: (String) -> Bool = SystemTimeZone.exists
    ) throws(BriefingSettingsError) -> String {
        guard let name = value.stringValue, !name.isEmpty else {
            throw BriefingSettingsError(
                "\"timezone\" must be an IANA time zone name like \"America/New_York\", not \(value.serializedString())"
            )
        }
        guard zoneExists(name) else {
            throw BriefingSettingsError(
                "\"timezone\" \(JSONValue.string(name).serializedString()) is not an IANA time zone (like \"Europe/Berlin\")"
            )
        }
        return name
    }

    /// The state file's object for these settings.
    package var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "enabled": .bool(enabled), "time": .string(time), "timezone": .string(timeZone),
            "sources": .array(sources.map(JSONValue.string)),
        ]
        if let lastSentOn { object["last_sent_on"] = .string(lastSentOn.description) }
        return .object(object)
    }
}
