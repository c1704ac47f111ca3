#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// `register-apns import devices.db`: the SQLite device table of a notification service built on
/// FastAPI (or anything keeping the same shape), read into a registry to merge.
///
/// The table: `devices(token TEXT PRIMARY KEY, device_name, device_model, os_version, app_version,
/// registered_at, last_seen_at)`. Only `token` is required (an APNs token, or an FCM registration
/// token, told apart by shape); the other columns are read when present
/// and map to `name`, `model`, `os_version`, `app_version`, `registered_at` and `last_seen_at`. The
/// table has no device id, so each device gets the id a registration carrying only a token gets
/// (`DeviceRegistration.derivedDeviceID(for:)`): importing again, or the app registering its token
/// with the endpoint later, updates the same device. The environment is left unknown (the first
/// delivery learns an APNs token's).
///
/// Times may be text or numbers, as such services store either:
/// - text: RFC 3339 (`2024-05-01T12:00:00.123Z`, `+02:00`), also with a space for the `T` and
///   without a zone (what SQLite's `CURRENT_TIMESTAMP` and Python's `datetime.isoformat()` of a
///   naive time write), read as UTC; text of digits is read as a number;
/// - numbers: UNIX time in seconds (fractions allowed); values of 100,000,000,000 and more, which
///   as seconds would lie beyond the year 5000, are read as milliseconds;
/// - NULL or an empty text: unknown.
extension RegisteredDevices {
    /// The table read, and the columns read from it by registry field.
    static let deviceTable = "devices"
    private static let deviceColumns = [
        "token", "device_name", "device_model", "os_version", "app_version", "registered_at", "last_seen_at",
    ]

    /// Reads the `devices` table of the SQLite database at `path` (see above).
    /// - Throws: `SQLiteError.unavailable` (69) without libsqlite3; `.unreadable` (65) for a file
    ///   that is not a database, a database without a `devices` table with a `token` column, or a row
    ///   with a bad token or time (naming the row and the column).
    package init(importingDeviceDatabase path: String) throws(SQLiteError) {
        let database = try SQLiteDatabase(readingAt: path)
        let present = Set(
            try database.rows("SELECT name FROM pragma_table_info('\(Self.deviceTable)')").compactMap { row in
                if case .text(let name) = row.first { return name.lowercased() } else { return nil }
            })
        guard !present.isEmpty else { throw .unreadable("\(path): no table \"\(Self.deviceTable)\"") }
        guard present.contains("token") else {
            throw .unreadable("\(path): table \"\(Self.deviceTable)\" has no \"token\" column")
        }
        let selected = Self.deviceColumns.map { present.contains($0) ? "\"\($0)\"" : "NULL" }
        let rows = try database.rows(
            "SELECT \(selected.joined(separator: ", ")) FROM \"\(Self.deviceTable)\" ORDER BY rowid")
        var devices: [RegisteredDevice] = []
        devices.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            let place = "\(path): row \(index + 1) of \"\(Self.deviceTable)\""
            guard case .text(let text) = row[0] else {
                throw .unreadable("\(place): \"token\" is \(Self.describe(row[0])), not a token")
            }
            let token: DeviceToken
            do throws(DeviceTokenError) {
                token = try DeviceToken(validating: text, transport: nil)
            } catch {
                throw .unreadable("\(place): \"token\": \(error.message)")
            }
            func date(_ column: Int) throws(SQLiteError) -> Date? {
                do throws(SQLiteError) {
                    return try Self.date(row[column])
                } catch {
                    throw .unreadable("\(place): \"\(Self.deviceColumns[column])\": \(error.description)")
                }
            }
            let record = DeviceRecord(
                token: token, name: Self.text(row[1]), model: Self.text(row[2]), osVersion: Self.text(row[3]),
                appVersion: Self.text(row[4]), registeredAt: try date(5), lastSeenAt: try date(6))
            devices.append(RegisteredDevice(id: DeviceRegistration.derivedDeviceID(for: token), record: record))
        }
        self.init(devices: devices)
        markUnchanged()
    }

    /// A text column's value; numbers as SQLite prints them; NULL and empty text as unknown.
    private static func text(_ value: SQLiteDatabase.Value) -> String? {
        switch value {
        case .text(let text): text.isEmpty ? nil : text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .null, .blob: nil
        }
    }

    /// A time column's value (see the type's documentation for the forms read).
    static func date(_ value: SQLiteDatabase.Value) throws(SQLiteError) -> Date? {
        switch value {
        case .null: return nil
        case .integer(let number): return unixTime(Double(number))
        case .real(let number): return unixTime(number)
        case .blob: throw .unreadable("a blob is not a time")
        case .text(let text):
            let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            if trimmed.isEmpty { return nil }
            if trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }),
                let number = Double(trimmed)
            {
                return unixTime(number)
            }
            if let date = ISO8601Timestamp.parse(trimmed) { return date }
            var utf8 = Array(trimmed.utf8)
            if utf8.count > 10, utf8[10] == UInt8(ascii: " ") { utf8[10] = UInt8(ascii: "T") }
            let tee = String(decoding: utf8, as: UTF8.self)
            if let date = ISO8601Timestamp.parse(tee) ?? ISO8601Timestamp.parse(tee + "Z") { return date }
            throw .unreadable("\"\(text)\" is neither an ISO 8601 time nor a UNIX time")
        }
    }

    private static func unixTime(_ number: Double) -> Date {
        Date(timeIntervalSince1970: abs(number) >= 100_000_000_000 ? number / 1000 : number)
    }

    private static func describe(_ value: SQLiteDatabase.Value) -> String {
        switch value {
        case .null: "NULL"
        case .integer: "an integer"
        case .real: "a real number"
        case .text: "text"
        case .blob: "a blob"
        }
    }
}
