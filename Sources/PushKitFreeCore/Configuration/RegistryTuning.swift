/// How the registry's stores behave at scale and under failure, from the environment (large
/// installations and tests set them; nothing else needs to):
/// - `PUSHKIT_REGISTRY_JOURNAL_BYTES`: the smallest state file whose changes a journaling writer
///   (`register-apns serve`) appends to the journal instead of rewriting the file; default 1 MiB
///   (about 3,000 devices, a 2 ms rewrite);
/// - `PUSHKIT_REGISTRY_JOURNAL_IDLE_MS`: how long serve waits without a change before it folds the
///   journal into the file; default 1,000 ms;
/// - `PUSHKIT_REGISTRY_RETRY_SECONDS`: how long a PostgreSQL registry retries a temporary failure
///   on new connections before giving up; default 10 s.
/// A value that is not a number is ignored (the default applies); negative ones count as 0 (the
/// idle time as 1 ms).
package struct RegistryTuning: Sendable, Equatable {
    /// The smallest state file, in bytes, whose changes a journaling writer appends to the journal.
    package var journalThreshold: Int
    /// How long serve waits without a change before it folds the journal into the file.
    package var journalIdle: Duration
    /// How long a PostgreSQL registry retries a temporary failure before giving up.
    package var databaseRetry: Duration

    /// 1 MiB, 1,000 ms and 10 s.
    package static let defaults = RegistryTuning(
        journalThreshold: 1 << 20, journalIdle: .milliseconds(1_000), databaseRetry: .seconds(10))

    /// Tuning with these values, as given.
    package init(journalThreshold: Int, journalIdle: Duration, databaseRetry: Duration) {
        self.journalThreshold = journalThreshold
        self.journalIdle = journalIdle
        self.databaseRetry = databaseRetry
    }

    /// The tuning `environment` sets, the defaults for what it leaves unset.
    package init(environment: [String: String]) {
        self = .defaults
        if let bytes = environment["PUSHKIT_REGISTRY_JOURNAL_BYTES"].flatMap({ Int($0) }) {
            journalThreshold = max(0, bytes)
        }
        if let milliseconds = environment["PUSHKIT_REGISTRY_JOURNAL_IDLE_MS"].flatMap({ Int($0) }) {
            journalIdle = .milliseconds(max(1, milliseconds))
        }
        if let seconds = environment["PUSHKIT_REGISTRY_RETRY_SECONDS"].flatMap({ Double($0) }), seconds.isFinite {
            databaseRetry = .milliseconds(Int64(max(0, min(seconds, 86_400)) * 1000))
        }
    }
}
