/// How a zone turns instants into local time: a TZif file's history, or a POSIX `TZ` rule alone.
package enum ZoneRules: Sendable {
    case file(TZifFile)
    case posix(PosixTimeZoneRule)

    /// The local wall-clock time at `instant` (seconds since 1970-01-01 00:00 UTC), counted in
    /// seconds from 1970-01-01 00:00 local time.
    package func localSeconds(at instant: Int) -> Int {
        switch self {
        case .file(let file): file.localSeconds(at: instant)
        case .posix(let rule): instant + rule.utcOffset(at: instant)
        }
    }
}
