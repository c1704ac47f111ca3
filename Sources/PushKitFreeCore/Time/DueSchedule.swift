#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A send that each device gets at its own local time, once a day: `send-push --due briefing`
/// selects the devices whose time has come in their own zone and that have not had today's yet, so
/// one cron line every minute delivers each device's at its own time.
package enum DueSchedule: String, Sendable, CaseIterable {
    /// The daily briefing a device asked for (`briefing_config`, see `BriefingSettings`).
    case briefing

    /// The device-local day whose send a device with `briefing` settings is due for at `now`; `nil`
    /// when it is not due (no settings, disabled, not yet time, already sent today, or a zone the tz
    /// database lacks).
    package func dueDay(briefing: BriefingSettings?, at now: Date, zones: inout TimeZoneCache) -> LocalDate? {
        switch self {
        case .briefing:
            guard let settings = briefing, let zone = zones.zone(named: settings.timeZone),
                settings.isDue(at: now, in: zone)
            else { return nil }
            return zone.localDate(at: now)
        }
    }
}

/// Zones of the tz database by name, each file read once per run however many devices name it.
package struct TimeZoneCache: Sendable {
    private var zones: [String: SystemTimeZone?] = [:]

    /// An empty cache; zones are read as they are first named.
    package init() {}

    /// The zone `name` names; `nil` when the tz database has no such zone.
    package mutating func zone(named name: String) -> SystemTimeZone? {
        if let known = zones[name] { return known }
        let zone = SystemTimeZone.named(name)
        zones[name] = zone
        return zone
    }
}
