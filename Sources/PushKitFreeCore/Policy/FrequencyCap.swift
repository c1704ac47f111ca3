#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// At most one send per key every `interval` seconds, across processes: config
/// `"min_interval_seconds": N` or `--min-interval N`, so a runaway loop cannot flood a phone.
///
/// The times of the last sends live in `frequency-cap.json` in the state directory. Admission reads,
/// decides and records under an exclusive `flock` on `frequency-cap.json.lock`, and the file is
/// replaced atomically: the same discipline as the device registry, so two processes started at the
/// same moment cannot both pass. An unreadable or corrupt file counts as empty (it only holds
/// times; a broken file must not silence every notification) and is rewritten. Entries older than a
/// week are dropped on every write.
package struct FrequencyCap: Sendable {
    /// The state file.
    package let path: String
    /// Seconds that must pass between two sends with the same key.
    package let interval: Int
    /// The clock sends are timed by; tests inject one.
    package let clock: any WallClock

    /// How long entries are kept.
    static let retention: Double = 7 * 24 * 3600

    /// The cap whose state is the file at `path`; its lock is `path` plus `.lock`.
    package init(path: String, interval: Int, clock: any WallClock = SystemClock()) {
        self.path = path
        self.interval = interval
        self.clock = clock
    }

    /// The cap whose state is `frequency-cap.json` in `stateDirectory`.
    package init(stateDirectory: String, interval: Int, clock: any WallClock = SystemClock()) {
        self.init(path: stateDirectory + "/frequency-cap.json", interval: interval, clock: clock)
    }

    /// What `admit` decided.
    package enum Admission: Sendable, Equatable {
        /// The send may go ahead; its time is recorded.
        case admitted
        /// The same key was sent `secondsAgo` seconds ago.
        case tooSoon(secondsAgo: Int)
    }

    /// Decides whether a send with `key` may go out now and, if so, records it.
    /// - Throws: `FileSystemError` when the state directory or lock cannot be created, or the file
    ///   cannot be written.
    package func admit(key: String) throws -> Admission {
        try PosixFile.createPrivateDirectory(PosixFile.parentDirectory(of: path))
        return try FileLock.withExclusiveLock(at: path + ".lock") { () throws(FileSystemError) -> Admission in
            let now = clock.now().timeIntervalSince1970
            var times = Self.read(path)
            if let last = times[key], now - last < Double(interval), now >= last {
                return .tooSoon(secondsAgo: Int((now - last).rounded(.down)))
            }
            times = times.filter { now - $0.value < Self.retention && $0.value <= now + 60 }
            times[key] = now
            let object: JSONValue = [
                "version": 1, "last_sent": .object(times.mapValues { .number(($0 * 1000).rounded() / 1000) }),
            ]
            try PosixFile.replaceAtomically(path, with: Array(object.serialized()))
            return .admitted
        }
    }

    /// The recorded times (UNIX seconds) by key; empty when the file is missing or unusable.
    static func read(_ path: String) -> [String: Double] {
        guard let data = try? PosixFile.readIfPresent(path), let value = try? JSONValue.parse(data),
            let times = value["last_sent"]?.objectValue
        else { return [:] }
        return times.compactMapValues(\.numberValue)
    }
}
