#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The registry's tables, created and migrated by the tools; the version is kept in `pushkit_schema`.
///
/// - `pushkit_devices`: one row per device: its id (primary key), its token (unique: a token belongs
///   to one install), the record as the state file holds it (`jsonb`, so fields this release does
///   not know are kept), and the revision of the write that last changed it.
/// - `pushkit_removals`: the ids removed, with the revision that removed them, so a long-running
///   process brings its copy up to date by reading what changed since the revision it last saw.
/// - `pushkit_members`: the state file's other top-level members.
/// - `pushkit_revision`: the sequence every write takes its revision from.
/// - `pushkit_questions` (version 2): the endpoint's questions (`PostgresQuestions`), one row per
///   question, its record as `questions.json` holds it.
enum PostgresSchema {
    /// The schema version this release creates and reads.
    static let currentVersion = 2

    /// The advisory lock every writer of the registry takes for its transaction (as `flock` on the
    /// state file's lock): "PKFR".
    static let writersLock = "1347110482"
    /// The advisory lock the migration holds: "PKFS".
    static let migrationLock = "1347110483"
    /// The advisory lock every writer of the questions takes for its transaction: "PKFQ".
    static let questionsLock = "1347110481"

    /// The statements that bring the schema from version `index` to `index + 1`.
    static let migrations: [[String]] = [
        [
            "CREATE SEQUENCE pushkit_revision",
            """
            CREATE TABLE pushkit_devices (
                device_id text PRIMARY KEY CHECK (device_id <> ''),
                token text NOT NULL,
                record jsonb NOT NULL CHECK (jsonb_typeof(record) = 'object'),
                revision bigint NOT NULL,
                CONSTRAINT pushkit_devices_token_unique UNIQUE (token) DEFERRABLE INITIALLY DEFERRED
            )
            """,
            "CREATE INDEX pushkit_devices_revision ON pushkit_devices (revision)",
            "CREATE TABLE pushkit_removals (device_id text PRIMARY KEY, revision bigint NOT NULL)",
            "CREATE INDEX pushkit_removals_revision ON pushkit_removals (revision)",
            "CREATE TABLE pushkit_members (name text PRIMARY KEY, value jsonb NOT NULL)",
        ],
        [
            """
            CREATE TABLE pushkit_questions (
                id text PRIMARY KEY CHECK (id <> ''),
                record jsonb NOT NULL CHECK (jsonb_typeof(record) = 'object')
            )
            """
        ],
    ]

    /// The schema's version in the database; `0` when there is none yet.
    static func version(on connection: PostgresConnection) throws(PostgresFailure) -> Int {
        let exists = try connection.execute("SELECT to_regclass('pushkit_schema') IS NOT NULL")
        guard exists.first?.first??.first == UInt8(ascii: "t") else { return 0 }
        let rows = try connection.execute("SELECT coalesce(max(version), 0) FROM pushkit_schema")
        return rows.first?.first??.decimal ?? 0
    }

    /// Brings the schema to `currentVersion`, in one transaction under the migration lock, so that
    /// tools starting together migrate once.
    /// - Returns: the version found before and the version now.
    /// - Throws: `PostgresFailure` (`.refused`) for a schema newer than this release reads.
    @discardableResult
    static func migrate(on connection: PostgresConnection) throws(PostgresFailure) -> (from: Int, to: Int) {
        let found = try version(on: connection)
        if found == currentVersion { return (found, found) }
        if found > currentVersion { throw newer(found) }
        try connection.execute("BEGIN")
        do throws(PostgresFailure) {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [migrationLock])
            try connection.execute("CREATE TABLE IF NOT EXISTS pushkit_schema (version integer NOT NULL)")
            let rows = try connection.execute("SELECT coalesce(max(version), 0) FROM pushkit_schema")
            let before = rows.first?.first??.decimal ?? 0
            if before > currentVersion { throw newer(before) }
            for version in before..<currentVersion {
                for statement in migrations[version] { try connection.execute(statement) }
                try connection.execute("INSERT INTO pushkit_schema (version) VALUES ($1)", [String(version + 1)])
            }
            try connection.execute("COMMIT")
            return (found, currentVersion)
        } catch {
            if connection.isUsable { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    private static func newer(_ version: Int) -> PostgresFailure {
        PostgresFailure(
            .refused,
            "its schema is version \(version), newer than this release reads (\(currentVersion)); upgrade the tools")
    }
}

extension Data {
    /// The value of a decimal integer column.
    var decimal: Int? { Int(String(decoding: self, as: UTF8.self)) }
}
