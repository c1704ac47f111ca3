#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The device registry in a PostgreSQL database, for more than one host: `state_file` set to a
/// `postgres://` or `postgresql://` URL.
///
/// The same operations with the same meaning as the state file (`RegistryStore`): `update` is one
/// transaction that takes an advisory lock (every writer on every host takes the same one, as
/// `flock` serializes writers on one host), brings this process's copy of the registry up to date,
/// runs the change, writes only the devices it changed, and commits. The commit is what an exit 0
/// or an HTTP 200 reports. A prune under that lock sees any re-registration committed before it, so
/// Apple's timestamp rule holds across hosts.
///
/// The copy is kept for the life of the process (`PostgresSession`, one per URL): the first use
/// reads every device, later ones only the rows whose revision is above the last one seen, so a
/// long-running `serve` does work proportional to the change, not to the registry.
///
/// A lost connection or a server restarting is tried again, the whole transaction on a new
/// connection, for `PUSHKIT_REGISTRY_RETRY_SECONDS` (default 10) seconds; then
/// `RegistryError.databaseUnavailable` (exit 75; `serve` answers 503 with `Retry-After`).
package struct PostgresRegistry: RegistryStore {
    /// The connection URL as configured (it may hold a password: show `location`).
    package let url: String
    /// The source of `registered_at`, `last_seen_at` and `last_delivered_at` times.
    package let clock: any WallClock
    private let session: PostgresSession

    /// The registry in the database `url` names; nothing is connected until the first read or write.
    /// - Parameter retry: how long a temporary failure is retried (`RegistryTuning.databaseRetry`).
    package init(
        url: String, clock: any WallClock = SystemClock(), retry: Duration = RegistryTuning.defaults.databaseRetry
    ) {
        self.url = url
        self.clock = clock
        session = PostgresSession.shared(url: url, retry: retry)
    }

    /// The URL with its password masked.
    package var location: String { PostgresURL.masked(url) }

    /// The registry as committed now (one statement, so one consistent snapshot).
    package func load() throws(RegistryError) -> RegisteredDevices {
        try session.load()
    }

    /// Runs `body` in one transaction under the writers' advisory lock and commits what it changed.
    /// - Throws: what `body` throws (nothing is written); `RegistryError.databaseUnavailable` (75),
    ///   `.databaseMisconfigured` (78) or `.databaseFailed` (69).
    @discardableResult
    package func update<Result>(_ body: (inout RegisteredDevices) throws -> Result) throws -> Result {
        try session.update(body)
    }

    /// Creates or migrates the schema (`register-apns db migrate`; every first use does it too).
    /// - Returns: the schema version found and the version now.
    @discardableResult
    package func migrate() throws(RegistryError) -> (from: Int, to: Int) {
        try session.migrate()
    }

    /// Whether the connection is encrypted with TLS (connecting if need be).
    package func usesTLS() throws(RegistryError) -> Bool {
        try session.usesTLS()
    }
}
