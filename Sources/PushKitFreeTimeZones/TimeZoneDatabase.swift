#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The system's tz database (Debian package `tzdata`): one compiled TZif file per zone under a
/// directory, `TZDIR` or else `/usr/share/zoneinfo`, read directly so that converting never
/// touches the process's environment (which `setenv("TZ")` + `tzset()` would, for every thread).
/// `TZ` and `TZDIR` come in as values (`init(environment:)`): nothing here reads the environment.
package struct TimeZoneDatabase: Sendable {
    /// Where the zone files are.
    package let directory: String
    /// The names a zone may have (`nil`: any file's name); the directory's other files are not zones.
    let names: Set<String>?
    /// The `TZ` variable, which names the system's zone (`nil`: not set, `/etc/localtime`).
    let systemZone: String?

    package init(directory: String, names: Set<String>? = nil, systemZone: String? = nil) {
        self.directory = directory
        self.names = names
        self.systemZone = systemZone
    }

    /// The database the C library would use in `environment`: `TZDIR` when set and not empty, else
    /// `/usr/share/zoneinfo`, with the zone names of `TimeZoneNames` (so `localtime` or `posix/UTC`
    /// are not zones), and `TZ` as the system's zone.
    package init(environment: [String: String]) {
        let directory = environment["TZDIR"] ?? ""
        self.init(
            directory: directory.isEmpty ? "/usr/share/zoneinfo" : directory, names: TimeZoneNames.all,
            systemZone: environment["TZ"])
    }

    private static let current = Mutex(TimeZoneDatabase(environment: [:]))

    /// The database of this process's environment, for the zones looked up by name alone
    /// (`SystemTimeZone.named`, `exists`): set once where a program starts, from the environment it
    /// read; until then, that of an empty environment.
    package static var system: TimeZoneDatabase {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// The zone file the C library reads when `TZ` is not set.
    static let localTimePath = "/etc/localtime"

    /// The zone named `identifier` (`Europe/Berlin`): one of `names` (when set), a relative name
    /// without `..` whose file is TZif.
    /// - Returns: `nil` when there is no such zone.
    package func zone(named identifier: String) -> TZifFile? {
        guard !identifier.isEmpty, !identifier.hasPrefix("/"), !identifier.split(separator: "/").contains("..") else {
            return nil
        }
        if let names, !names.contains(identifier) { return nil }
        return Self.readZone(at: directory + "/" + identifier)
    }

    /// The rules of the system's zone, as the C library follows `TZ` (`rules(forTZ: systemZone)`).
    package var systemZoneRules: ZoneRules { rules(forTZ: systemZone) }

    /// The rules the C library follows for a `TZ` variable holding `tz` (`nil`: not set):
    /// - not set: `/etc/localtime`; empty, or just `:`: UTC;
    /// - a leading `:` is dropped; then a zone file (a name in this database, or an absolute path),
    ///   else a POSIX `TZ` string (`CET-1CEST,M3.5.0,M10.5.0/3`);
    /// - anything unreadable or malformed: UTC.
    package func rules(forTZ tz: String?) -> ZoneRules {
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

    /// The largest zone file read: Debian's largest is under 4 KB ("fat" files under 8 KB).
    static let zoneFileLimit = 1 << 20

    /// The zone file at `path`; `nil` when it is missing, unreadable, not a regular file (a
    /// directory, or a device such as `/dev/zero` that `TZ` could name), larger than
    /// `zoneFileLimit` or not TZif.
    private static func readZone(at path: String) -> TZifFile? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= zoneFileLimit,
            let contents = try? Data(contentsOf: URL(fileURLWithPath: path))
        else { return nil }
        return TZifFile(contents: contents)
    }
}
