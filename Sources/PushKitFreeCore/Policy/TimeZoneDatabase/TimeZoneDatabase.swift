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

/// The system's tz database (Debian package `tzdata`): one compiled TZif file per zone under a
/// directory, `$TZDIR` or else `/usr/share/zoneinfo`, read directly so that converting never
/// touches the process's environment (which `setenv("TZ")` + `tzset()` would, for every thread).
struct TimeZoneDatabase: Sendable {
    /// Where the zone files are.
    let directory: String
    /// The names a zone may have (`nil`: any file's name); the directory's other files are not zones.
    let names: Set<String>?

    init(directory: String, names: Set<String>? = nil) {
        self.directory = directory
        self.names = names
    }

    /// The database the C library would use: `$TZDIR` when set and not empty, else `/usr/share/zoneinfo`,
    /// with the zone names of `TimeZoneNames` (so `localtime` or `posix/UTC` are not zones).
    static var system: TimeZoneDatabase {
        let directory = environmentValue("TZDIR") ?? ""
        return TimeZoneDatabase(
            directory: directory.isEmpty ? "/usr/share/zoneinfo" : directory, names: TimeZoneNames.all)
    }

    /// The zone file the C library reads when `TZ` is not set.
    static let localTimePath = "/etc/localtime"

    /// An environment variable's value, read and never written.
    static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The zone named `identifier` (`Europe/Berlin`): one of `names` (when set), a relative name
    /// without `..` whose file is TZif.
    /// - Returns: `nil` when there is no such zone.
    func zone(named identifier: String) -> TZifFile? {
        guard !identifier.isEmpty, !identifier.hasPrefix("/"), !identifier.split(separator: "/").contains("..") else {
            return nil
        }
        if let names, !names.contains(identifier) { return nil }
        return Self.readZone(at: directory + "/" + identifier)
    }

    /// The rules the C library follows for a `TZ` variable holding `tz` (`nil`: not set):
    /// - not set: `/etc/localtime`; empty, or just `:`: UTC;
    /// - a leading `:` is dropped; then a zone file (a name in this database, or an absolute path),
    ///   else a POSIX `TZ` string (`CET-1CEST,M3.5.0,M10.5.0/3`);
    /// - anything unreadable or malformed: UTC.
    func rules(forTZ tz: String?) -> ZoneRules {
        guard var name = tz else {
            return Self.readZone(at: Self.localTimePath).map(ZoneRules.file) ?? .posix(.utc)
        }
        if name.hasPrefix(":") { name.removeFirst() }
        guard !name.isEmpty else { return .posix(.utc) }
        if let file = Self.readZone(at: name.hasPrefix("/") ? name : directory + "/" + name) {
            return .file(file)
        }
        return .posix(PosixTimeZoneRule(name) ?? .utc)
    }

    private static func readZone(at path: String) -> TZifFile? {
        guard let contents = try? PosixFile.readIfPresent(path) else { return nil }
        return TZifFile(contents: contents)
    }
}
