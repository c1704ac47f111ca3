#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process's connection to one PostgreSQL registry and its copy of the registry, shared by every
/// `PostgresRegistry` of that URL (so `send-push` reads and writes back on one connection, and a
/// server's routes share its copy). One statement at a time: the work is done under a lock.
final class PostgresSession: @unchecked Sendable {
    private let url: String
    private let location: String
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    /// Guarded by `lock`.
    private var connection: PostgresConnection?
    /// The registry as of revision `seen`; guarded by `lock`. `nil` until first read.
    private var copy: RegisteredDevices?
    private var seen: Int64 = 0

    /// How long a connection problem is tried again: `PUSHKIT_REGISTRY_RETRY_SECONDS`, default 10.
    let retryLimit: Duration

    private static let sessions = SessionTable()

    /// The session for `url`, made on first use.
    /// The first session made for `url` keeps its `retry` (`RegistryTuning.databaseRetry`).
    static func shared(url: String, retry: Duration) -> PostgresSession {
        sessions.session(for: url, retry: retry)
    }

    private init(url: String, retry: Duration) {
        self.url = url
        location = PostgresURL.masked(url)
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        retryLimit = retry
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body()
    }

    // MARK: Operations

    func load() throws(RegistryError) -> RegisteredDevices {
        try typed {
            try locked {
                try retrying { connection in
                    try catchUp(on: connection)
                    return copy ?? RegisteredDevices()
                }
            }
        }
    }

    func migrate() throws(RegistryError) -> (from: Int, to: Int) {
        try typed {
            try locked { try retrying(migrating: false) { connection in try PostgresSchema.migrate(on: connection) } }
        }
    }

    func usesTLS() throws(RegistryError) -> Bool {
        try typed { try locked { try retrying { connection in connection.usesTLS } } }
    }

    /// `work`'s result; its errors, which `retrying` makes `RegistryError`s when `work` throws nothing else.
    private func typed<T>(_ work: () throws -> T) throws(RegistryError) -> T {
        do {
            return try work()
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .databaseFailed(location: location, detail: "\(error)")
        }
    }

    func update<Result>(_ body: (inout RegisteredDevices) throws -> Result) throws -> Result {
        try locked {
            try retrying { connection in try transaction(on: connection, body) }
        }
    }

    /// One attempt at an update: lock, catch up, change, write what changed, commit.
    private func transaction<Result>(
        on connection: PostgresConnection, _ body: (inout RegisteredDevices) throws -> Result
    ) throws -> Result {
        try connection.execute("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.writersLock])
            try catchUp(on: connection)
            // Changed in place, not copied: a copy of 100,000 devices and their token index per
            // batch would cost more than the batch. Until the commit, `copy` is nil, so a failure
            // part way makes the next attempt read the registry afresh.
            var devices = copy ?? RegisteredDevices()
            copy = nil
            let membersBefore = devices.otherFields
            let changesBefore = devices.changeCount
            let result: Result
            do {
                result = try body(&devices)
            } catch {
                if devices.changeCount == changesBefore { copy = devices }
                throw error
            }
            guard devices.changeCount != changesBefore else {
                copy = devices
                try connection.execute("ROLLBACK")
                return result
            }
            let revision = try write(devices, membersChanged: devices.otherFields != membersBefore, on: connection)
            try connection.execute("COMMIT")
            devices.markUnchanged()
            copy = devices
            seen = revision
            return result
        } catch {
            if connection.isUsable { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Brings `copy` up to the committed registry: every row on first use, then only the rows whose
    /// revision is above `seen`, and the removals since.
    private func catchUp(on connection: PostgresConnection) throws(PostgresFailure) {
        let since = copy == nil ? "0" : String(seen)
        // `json_object_agg` (not `jsonb_`) and text concatenation: the records go out as stored,
        // without building one large jsonb value (four times faster at 100,000 devices).
        let rows = try connection.execute(
            """
            SELECT '{"version": 1, "devices": '
                    || coalesce((SELECT json_object_agg(device_id, record) FROM pushkit_devices
                        WHERE revision > $1::bigint)::text, '{}')
                    || coalesce((SELECT string_agg(', ' || to_json(name)::text || ': ' || value::text, '')
                        FROM pushkit_members), '')
                    || '}',
                greatest((SELECT max(revision) FROM pushkit_devices WHERE revision > $1::bigint),
                    (SELECT max(revision) FROM pushkit_removals WHERE revision > $1::bigint), $1::bigint),
                (SELECT jsonb_agg(device_id) FROM pushkit_removals WHERE revision > $1::bigint)::text
            """, [since])
        guard let row = rows.first, row.count == 3, let document = row[0], let revision = row[1]?.decimal else {
            throw PostgresFailure(.refused, "the registry's tables did not answer as expected")
        }
        let changed: RegisteredDevices
        do throws(JSONSyntaxError) {
            changed = try RegisteredDevices(stateFile: document)
        } catch {
            throw PostgresFailure(.refused, "a device record in the database is not valid: \(error.detail)")
        }
        RegistryWarnings.warn(about: changed.unreadableDevices, in: location)
        guard var devices = copy else {
            // Kept for the life of the process and changed many times: finding a token's devices
            // goes through an index, not a scan of every device (see `indexTokens`).
            var loaded = changed
            loaded.indexesTokens = true
            copy = loaded
            seen = Int64(revision)
            return
        }
        // Changed in place (see `transaction`); nothing below fails.
        copy = nil
        if let removals = row[2], case .array(let ids)? = try? JSONValue.parse(removals) {
            for case .string(let id) in ids { devices[id] = nil }
        }
        for device in changed.devices { devices[device.id] = device.record }
        for device in changed.unreadableDevices { devices.keepUnreadable(device) }
        if devices.otherFields != changed.otherFields { devices.otherFields = changed.otherFields }
        // What was caught up is what the database holds: nothing for the next write to store.
        devices.markUnchanged()
        copy = devices
        seen = Int64(revision)
    }

    /// Writes the devices `devices` changed, removed or added since it was read or last written
    /// (`changedDeviceIDs`), and the top-level members when they changed, under a new revision.
    /// - Returns: the revision written.
    private func write(
        _ devices: RegisteredDevices, membersChanged: Bool, on connection: PostgresConnection
    ) throws(PostgresFailure) -> Int64 {
        var changed: [RegisteredDevice] = []
        var removed: [JSONValue] = []
        for id in devices.changedDeviceIDs.sorted() {
            if let record = devices[id] {
                changed.append(RegisteredDevice(id: id, record: record))
            } else {
                removed.append(.string(id))
            }
        }
        let rows = try connection.execute("SELECT nextval('pushkit_revision')")
        guard let revision = rows.first?.first??.decimal else {
            throw PostgresFailure(.refused, "the revision sequence did not answer")
        }
        let revisionText = String(revision)
        if !removed.isEmpty {
            let ids = Array(JSONValue.array(removed).serialized())
            try connection.execute(
                "DELETE FROM pushkit_devices WHERE device_id IN (SELECT jsonb_array_elements_text($1::jsonb))",
                bytes: [ids])
            try connection.execute(
                """
                INSERT INTO pushkit_removals (device_id, revision)
                SELECT jsonb_array_elements_text($1::jsonb), $2::bigint
                ON CONFLICT (device_id) DO UPDATE SET revision = excluded.revision
                """, bytes: [ids, Array(revisionText.utf8)])
        }
        if !changed.isEmpty || membersChanged {
            let document = RegisteredDevices(devices: changed, otherFields: devices.otherFields).stateFileBytes()
            if !changed.isEmpty {
                try connection.execute(
                    """
                    INSERT INTO pushkit_devices (device_id, token, record, revision)
                    SELECT key, value->>'token', value, $2::bigint FROM jsonb_each($1::jsonb->'devices')
                    ON CONFLICT (device_id) DO UPDATE
                    SET token = excluded.token, record = excluded.record, revision = excluded.revision
                    """, bytes: [document, Array(revisionText.utf8)])
                try connection.execute(
                    "DELETE FROM pushkit_removals WHERE device_id IN (SELECT jsonb_object_keys($1::jsonb->'devices'))",
                    bytes: [document])
            }
            if membersChanged {
                try connection.execute("DELETE FROM pushkit_members")
                try connection.execute(
                    """
                    INSERT INTO pushkit_members (name, value) SELECT key, value FROM jsonb_each($1::jsonb)
                    WHERE key NOT IN ('version', 'devices')
                    """, bytes: [document])
            }
        }
        return Int64(revision)
    }

    // MARK: Other tables

    /// Runs `work` on the connection, tried again as every operation is (`retrying`): for the
    /// tables beside the registry (`PostgresQuestions`), of which the session keeps no copy.
    func withConnection<T>(_ work: (PostgresConnection) throws -> T) throws -> T {
        try locked { try retrying(work) }
    }

    /// Runs `work` in one transaction that first takes the advisory lock `lock`, and commits; rolled
    /// back when `work` throws. Tried again as a whole on a new connection while the failure is
    /// temporary, so `work` may run more than once.
    func transaction<T>(lock: String, _ work: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.execute("BEGIN")
            do {
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [lock])
                let result = try work(connection)
                try connection.execute("COMMIT")
                return result
            } catch {
                if connection.isUsable { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// `work`'s errors as `RegistryError`s, for the stores beside the registry.
    func typedErrors<T>(_ work: () throws -> T) throws(RegistryError) -> T {
        try typed(work)
    }

    // MARK: Connecting and trying again

    /// Runs `work` on a connection (made, and the schema migrated, when there is none), trying
    /// again on a new connection while the failure is temporary, with back-off, for `retryLimit`.
    /// Errors `work` throws that are not `PostgresFailure` pass through at once.
    /// - Parameter migrating: whether a new connection brings the schema up to date first.
    private func retrying<T>(migrating: Bool = true, _ work: (PostgresConnection) throws -> T) throws -> T {
        let started = ContinuousClock.now
        var pause = Duration.milliseconds(25)
        while true {
            do {
                let connection = try connected(migrating: migrating)
                return try work(connection)
            } catch let failure as PostgresFailure {
                // Whatever happened, the copy may be ahead of or behind what is committed.
                if !(connection?.isUsable ?? false) { connection = nil }
                copy = nil
                seen = 0
                let elapsed = ContinuousClock.now - started
                guard failure.isTemporary, elapsed + pause <= retryLimit else {
                    throw registryError(failure, triedFor: elapsed)
                }
                usleep(UInt32(pause / .microseconds(1)))
                pause = min(pause * 2, .seconds(1))
            }
        }
    }

    private func connected(migrating: Bool) throws(PostgresFailure) -> PostgresConnection {
        if let connection, connection.isUsable { return connection }
        connection = nil
        let fresh = try PostgresConnection(url: url)
        if migrating { try PostgresSchema.migrate(on: fresh) }
        connection = fresh
        return fresh
    }

    private func registryError(_ failure: PostgresFailure, triedFor elapsed: Duration) -> RegistryError {
        switch failure.kind {
        case .connectionLost, .transient:
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let tried = seconds >= 0.1 ? " (tried again for \(Int(seconds.rounded())) s)" : ""
            return .databaseUnavailable(location: location, detail: failure.message + tried)
        case .misconfigured:
            return .databaseMisconfigured(location: location, detail: failure.message)
        case .refused:
            return .databaseFailed(location: location, detail: failure.message)
        }
    }
}

/// The sessions of a process, by URL.
private final class SessionTable: @unchecked Sendable {
    private var sessions: [String: PostgresSession] = [:]
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()

    func session(for url: String, retry: Duration) -> PostgresSession {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if let session = sessions[url] { return session }
        let session = PostgresSession.make(url: url, retry: retry)
        sessions[url] = session
        return session
    }
}

extension PostgresSession {
    fileprivate static func make(url: String, retry: Duration) -> PostgresSession {
        PostgresSession(url: url, retry: retry)
    }
}
