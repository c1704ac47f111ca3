import Foundation
import Testing

/// `register-apns import devices.db`: the SQLite device table of a FastAPI notification service,
/// made by Python's own sqlite3 module (Tests/Tools/make_devices_db.py), read by the built tool.
@Suite("register-apns import of an SQLite devices.db")
struct DeviceDatabaseImportTests {
    static let maker = RepositoryFiles.path("Tests/Tools/make_devices_db.py")
    let directory: TemporaryDirectory
    let stateFile: String
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory()
        stateFile = directory.file("state/devices.json")
        environment = ["HOME": directory.file("home"), "APNS_STATE_FILE": stateFile]
    }

    @discardableResult
    func tool(_ arguments: String...) throws -> ToolResult {
        try BuiltTool.run("register-apns", arguments, environment: environment)
    }

    /// Writes `name` with the service's table (or `create`) holding `rows`.
    func database(_ name: String, create: String? = nil, rows: [[String: Any]]) throws -> String {
        var spec: [String: Any] = ["rows": rows]
        if let create { spec["create"] = create }
        let path = directory.file(name)
        let made = try BuiltTool.runSystem(
            "python3", [Self.maker, path], stdin: try JSONSerialization.data(withJSONObject: spec))
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// The id a registration carrying only `token` gets: "apns-" and 16 hex digits of its SHA-256
    /// (computed here by Python, not by the tools).
    func derivedID(_ token: String) throws -> String {
        let script =
            "import hashlib,sys; print('apns-' + hashlib.sha256(sys.argv[1].lower().encode()).hexdigest()[:16])"
        return try BuiltTool.runSystem("python3", ["-c", script, token]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func listed() throws -> [String: [String: Any]] {
        let result = try tool("list", "--json")
        result.expectSuccess()
        return try listedDevices(result.stdout)
    }

    @Test("the service's columns map onto the registry; times as ISO 8601 text or UNIX numbers; ids from tokens")
    func mapsColumnsAndTimes() throws {
        let tokens = (1...6).map { hexToken($0, filler: "5a") }
        let path = try database(
            "devices.db",
            rows: [
                [
                    "token": tokens[0], "device_name": "Ada's iPhone", "device_model": "iPhone15,2",
                    "os_version": "17.4.1", "app_version": "2.3.0",
                    "registered_at": "2024-05-01T12:00:00Z", "last_seen_at": "2024-06-01T08:30:00.250+02:00",
                ],
                // SQLite's CURRENT_TIMESTAMP and Python's naive isoformat(): no zone, read as UTC.
                [
                    "token": tokens[1], "registered_at": "2024-05-01 12:00:00",
                    "last_seen_at": "2024-06-01T08:30:00.123456",
                ],
                // UNIX seconds as INTEGER and REAL, milliseconds as INTEGER, digits as TEXT.
                ["token": tokens[2], "registered_at": 1_714_564_800, "last_seen_at": 1_717_230_600.5],
                ["token": tokens[3], "registered_at": 1_714_564_800_000, "last_seen_at": "1717230600"],
                // NULLs and empty text: unknown.
                ["token": tokens[4], "device_name": NSNull(), "registered_at": "", "last_seen_at": NSNull()],
                // Tokens in capitals, as some services keep them.
                ["token": tokens[5].uppercased(), "app_version": "3.0"],
            ])

        let imported = try tool("import", path)
        imported.expectSuccess()
        #expect(imported.stdout.contains("imported 6 devices from \(path): 6 added"), "\(imported.stdout)")

        let devices = try listed()
        #expect(devices.count == 6)
        let first = try #require(devices[try derivedID(tokens[0])])
        #expect(first["token"] as? String == tokens[0])
        #expect(first["name"] as? String == "Ada's iPhone" && first["model"] as? String == "iPhone15,2")
        #expect(first["os_version"] as? String == "17.4.1" && first["app_version"] as? String == "2.3.0")
        #expect(first["registered_at"] as? String == "2024-05-01T12:00:00.000Z")
        #expect(first["last_seen_at"] as? String == "2024-06-01T06:30:00.250Z")
        #expect(first["environment"] is NSNull, "the environment is learned by the first delivery")

        let naive = try #require(devices[try derivedID(tokens[1])])
        #expect(naive["registered_at"] as? String == "2024-05-01T12:00:00.000Z")
        #expect(naive["last_seen_at"] as? String == "2024-06-01T08:30:00.123Z")
        #expect(naive["name"] is NSNull)

        let unix = try #require(devices[try derivedID(tokens[2])])
        #expect(unix["registered_at"] as? String == "2024-05-01T12:00:00.000Z")
        #expect(unix["last_seen_at"] as? String == "2024-06-01T08:30:00.500Z")
        let milliseconds = try #require(devices[try derivedID(tokens[3])])
        #expect(milliseconds["registered_at"] as? String == "2024-05-01T12:00:00.000Z")
        #expect(milliseconds["last_seen_at"] as? String == "2024-06-01T08:30:00.000Z")

        let unknown = try #require(devices[try derivedID(tokens[4])])
        #expect(unknown["registered_at"] is NSNull && unknown["last_seen_at"] is NSNull && unknown["name"] is NSNull)
        let capitals = try #require(devices[try derivedID(tokens[5])])
        #expect(capitals["token"] as? String == tokens[5] && capitals["app_version"] as? String == "3.0")
    }

    @Test("the merge rules apply: the later registration wins, a token stays with one device id")
    func mergesByTheUsualRules() throws {
        let kept = hexToken(1, filler: "6b")
        let moved = hexToken(2, filler: "6b")
        let updated = hexToken(3, filler: "6b")
        // Here: `kept` registered after the database's row; `moved` under a name of ours, before it.
        try tool("add", try derivedID(kept), kept, "--name", "registered here").expectSuccess()
        try tool("add", "old-phone", moved).expectSuccess()
        let first = try database(
            "first.db",
            rows: [
                ["token": kept, "device_name": "from the service", "last_seen_at": "2001-01-01T00:00:00Z"],
                ["token": moved, "device_name": "moved", "last_seen_at": "2999-01-01T00:00:00Z"],
                ["token": updated, "device_name": "v1", "last_seen_at": "2024-01-01T00:00:00Z"],
            ])
        let result = try tool("import", first)
        result.expectSuccess()
        #expect(result.stdout.contains("2 added, 0 updated, 0 unchanged, 1 kept"), "\(result.stdout)")
        #expect(result.stdout.contains("tokens moved from old-phone"), "\(result.stdout)")

        var devices = try listed()
        #expect(devices[try derivedID(kept)]?["name"] as? String == "registered here")
        #expect(devices["old-phone"] == nil)
        #expect(devices[try derivedID(moved)]?["name"] as? String == "moved")

        let second = try database(
            "second.db", rows: [["token": updated, "device_name": "v2", "last_seen_at": "2024-02-01T00:00:00Z"]])
        let again = try tool("import", second)
        again.expectSuccess()
        #expect(again.stdout.contains("0 added, 1 updated"), "\(again.stdout)")
        devices = try listed()
        #expect(devices[try derivedID(updated)]?["name"] as? String == "v2")
    }

    @Test(
        "a bad database exits 65 naming what is wrong, and nothing is written",
        arguments: [
            BadDatabase.noTable, .noTokenColumn, .badToken, .badTime, .notADatabase, .fromStandardInput,
        ])
    func refusesBadDatabases(_ bad: BadDatabase) throws {
        try tool("add", "here", hexToken(7, filler: "7c")).expectSuccess()
        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let path: String
        switch bad {
        case .noTable:
            path = try database("other.db", create: "CREATE TABLE users (token TEXT)", rows: [])
        case .noTokenColumn:
            path = try database("columns.db", create: "CREATE TABLE devices (device_name TEXT)", rows: [])
        case .badToken:
            path = try database(
                "token.db", rows: [["token": hexToken(1, filler: "7c")], ["token": "not-a-token"]])
        case .badTime:
            path = try database(
                "time.db", rows: [["token": hexToken(1, filler: "7c"), "last_seen_at": "yesterday"]])
        case .notADatabase, .fromStandardInput:
            // The header, then garbage where SQLite's pages should be.
            path = directory.file("garbage.db")
            try (Data("SQLite format 3\0".utf8) + Data(repeating: 0xA5, count: 4096))
                .write(to: URL(fileURLWithPath: path))
        }
        let result: ToolResult
        if bad == .fromStandardInput {
            result = try BuiltTool.run(
                "register-apns", ["import", "-"], environment: environment,
                stdin: try Data(contentsOf: URL(fileURLWithPath: path)))
        } else {
            result = try tool("import", path)
        }
        #expect(result.status == 65, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains(bad.message), "\(result.stderr)")
        #expect(!result.stderr.contains("not-a-token"), "a token is never echoed: \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before)
    }

    @Test("without a loadable libsqlite3 the import exits 69, saying what to install, and writes nothing")
    func withoutSQLite() throws {
        let path = try database("devices.db", rows: [["token": hexToken(1, filler: "8d")]])
        // A file of that name that is not a library, found first by the loader.
        let libraries = directory.file("lib")
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try directory.write("lib/libsqlite3.so.0", "not a library")
        var environment = environment
        environment["LD_LIBRARY_PATH"] = libraries
        let result = try BuiltTool.run("register-apns", ["import", path], environment: environment)
        #expect(result.status == 69, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("SQLite is not available"), "\(result.stderr)")
        #expect(result.stderr.contains("install libsqlite3-0"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stateFile))
    }

    enum BadDatabase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case noTable, noTokenColumn, badToken, badTime, notADatabase, fromStandardInput

        var message: String {
            switch self {
            case .noTable: "other.db: no table \"devices\""
            case .noTokenColumn: "columns.db: table \"devices\" has no \"token\" column"
            case .badToken: "token.db: row 2 of \"devices\": \"token\": device token has"
            case .badTime: "time.db: row 1 of \"devices\": \"last_seen_at\": \"yesterday\" is neither"
            case .notADatabase: "garbage.db: file is not a database"
            case .fromStandardInput: "an SQLite database is read from its file: give its path, not '-'"
            }
        }

        var testDescription: String { rawValue }
    }
}
