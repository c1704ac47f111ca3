#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeTimeZones

/// Turns an instant into the wall-clock time of day somewhere: what quiet hours are written in.
/// Tests inject a fixed-offset zone; the tools use `SystemTimeZone`.
package protocol LocalTimeZone: Sendable {
    /// The zone's name for messages: an IANA name, or "system".
    var name: String { get }
    /// Minutes since local midnight (0..<1440) at `date`.
    func minuteOfDay(at date: Date) -> Int
    /// The local calendar day at `date`.
    func localDate(at date: Date) -> LocalDate
}

/// A zone that is always `offsetMinutes` ahead of UTC (tests, and `Etc/GMT±N`-style fixed zones).
package struct FixedOffsetTimeZone: LocalTimeZone {
    /// The name for messages; "fixed" unless given.
    package let name: String
    /// Minutes ahead of UTC; negative west of Greenwich.
    package let offsetMinutes: Int

    /// A zone `offsetMinutes` ahead of UTC, named `name` in messages.
    package init(name: String = "fixed", offsetMinutes: Int) {
        self.name = name
        self.offsetMinutes = offsetMinutes
    }

    /// Minutes since local midnight (0..<1440) at `date`.
    package func minuteOfDay(at date: Date) -> Int {
        localMinutes(at: date).floorModulo(1440)
    }

    /// The local calendar day at `date`.
    package func localDate(at date: Date) -> LocalDate {
        LocalDate(dayNumber: localMinutes(at: date).floorDivided(by: 1440))
    }

    private func localMinutes(at date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 60).rounded(.down)) + offsetMinutes
    }
}

/// An IANA zone (`Europe/Berlin`) or the system's zone, converted from the system's tz database
/// (`/usr/share/zoneinfo`, Debian package `tzdata`), daylight saving included, with the same answers
/// as the C library's `localtime_r`.
///
/// A named zone's file is read once, here; converting is arithmetic on what was read, so any number
/// of tasks may convert at once. Nothing sets `TZ` or calls `tzset()`, nor reads the environment:
/// `TZ` and `TZDIR` come in with the `TimeZoneDatabase`.
package struct SystemTimeZone: LocalTimeZone {
    /// The IANA name; `nil` for the system's zone (`TZ`, else `/etc/localtime`).
    package let identifier: String?
    /// The named zone's rules; `nil` for the system's zone, which follows `TZ` at each conversion.
    private let rules: ZoneRules?
    /// Where the system's zone is looked up at each conversion (`TZ`, else `/etc/localtime`).
    private let database: TimeZoneDatabase

    /// The IANA name, or "system" for the system's zone.
    package var name: String { identifier ?? "system" }

    /// A zone of `database` (`Configuration.timeZones`; tests point it at a directory of their own),
    /// or the system's zone (`identifier` nil).
    /// - Throws: `ConfigurationError` (exit 78) when `identifier` is not a zone of the tz database.
    package init(identifier: String?, database: TimeZoneDatabase = .system) throws(ConfigurationError) {
        if let identifier {
            guard let file = database.zone(named: identifier) else {
                throw ConfigurationError(
                    "quiet_hours timezone \"\(identifier)\" is not an IANA time zone (e.g. Europe/Berlin) in "
                        + database.directory)
            }
            rules = .file(file)
        } else {
            rules = nil
        }
        self.identifier = identifier
        self.database = database
    }

    /// The zone `identifier` names in the system's tz database; `nil` when there is none.
    package static func named(_ identifier: String) -> SystemTimeZone? {
        guard let file = TimeZoneDatabase.system.zone(named: identifier) else { return nil }
        return SystemTimeZone(identifier: identifier, rules: .file(file), database: .system)
    }

    /// Whether the system's tz database has a zone `identifier` (`America/New_York`).
    package static func exists(_ identifier: String) -> Bool {
        TimeZoneDatabase.system.zone(named: identifier) != nil
    }

    private init(identifier: String, rules: ZoneRules, database: TimeZoneDatabase) {
        self.identifier = identifier
        self.rules = rules
        self.database = database
    }

    /// Minutes since local midnight (0..<1440) at `date`, daylight saving included.
    package func minuteOfDay(at date: Date) -> Int {
        localSeconds(at: date).floorModulo(86_400) / 60
    }

    /// The local calendar day at `date`.
    package func localDate(at date: Date) -> LocalDate {
        LocalDate(dayNumber: localSeconds(at: date).floorDivided(by: 86_400))
    }

    private func localSeconds(at date: Date) -> Int {
        let rules = rules ?? database.systemZoneRules
        return rules.localSeconds(at: Self.instant(of: date))
    }

    /// Whole seconds since 1970 (rounded down), kept within a billion years so the arithmetic cannot overflow.
    static func instant(of date: Date) -> Int {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        let limit = 1 << 55
        return Int(min(max(seconds, -Double(limit)), Double(limit)))
    }
}
