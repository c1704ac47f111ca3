#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns an instant into the wall-clock time of day somewhere: what quiet hours are written in.
/// Tests inject a fixed-offset zone; the tools use `SystemTimeZone`.
public protocol LocalTimeZone: Sendable {
    /// The zone's name for messages: an IANA name, or "system".
    var name: String { get }
    /// Minutes since local midnight (0..<1440) at `date`.
    func minuteOfDay(at date: Date) -> Int
}

/// A zone that is always `offsetMinutes` ahead of UTC (tests, and `Etc/GMT±N`-style fixed zones).
public struct FixedOffsetTimeZone: LocalTimeZone {
    public let name: String
    public let offsetMinutes: Int

    public init(name: String = "fixed", offsetMinutes: Int) {
        self.name = name
        self.offsetMinutes = offsetMinutes
    }

    public func minuteOfDay(at date: Date) -> Int {
        let minutes = Int((date.timeIntervalSince1970 / 60).rounded(.down)) + offsetMinutes
        return ((minutes % 1440) + 1440) % 1440
    }
}

/// An IANA zone (`Europe/Berlin`) or the system's zone, converted by the C library from the
/// system's tz database (`/usr/share/zoneinfo`, Debian package `tzdata`), daylight saving included.
///
/// The C library only converts in the zone named by the `TZ` environment variable, so a named zone
/// sets `TZ` for the duration of one conversion and restores it. That is safe in the tools (one
/// thread); it is not meant for concurrent use.
public struct SystemTimeZone: LocalTimeZone {
    /// The IANA name; `nil` for the system's zone (`TZ`, else `/etc/localtime`).
    public let identifier: String?

    public var name: String { identifier ?? "system" }

    /// - Throws: `ConfigurationError` (exit 78) when `identifier` is not a zone of the tz database.
    public init(identifier: String?) throws(ConfigurationError) {
        if let identifier {
            guard Self.isKnownZone(identifier) else {
                throw ConfigurationError("quiet_hours timezone \"\(identifier)\" is not an IANA time zone (e.g. Europe/Berlin) in \(Self.zoneDirectory)")
            }
        }
        self.identifier = identifier
    }

    /// The tz database directory: `TZDIR`, else `/usr/share/zoneinfo`.
    static var zoneDirectory: String {
        if let directory = getenv("TZDIR"), directory.pointee != 0 { return String(cString: directory) }
        return "/usr/share/zoneinfo"
    }

    /// Whether `identifier` names a zone file: relative, no `..`, and a TZif file exists for it.
    static func isKnownZone(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, !identifier.hasPrefix("/"), !identifier.split(separator: "/").contains(".."),
              let contents = try? PosixFile.readIfPresent(zoneDirectory + "/" + identifier) else { return false }
        return contents.starts(with: Array("TZif".utf8))
    }

    public func minuteOfDay(at date: Date) -> Int {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard let identifier else {
            tzset()
            localtime_r(&seconds, &parts)
            return Int(parts.tm_hour) * 60 + Int(parts.tm_min)
        }
        let previous = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", ":" + identifier, 1)
        tzset()
        localtime_r(&seconds, &parts)
        if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }
        tzset()
        return Int(parts.tm_hour) * 60 + Int(parts.tm_min)
    }
}
