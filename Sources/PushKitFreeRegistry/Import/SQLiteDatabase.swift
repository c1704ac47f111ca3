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

/// A read-only connection to an SQLite database file, for `register-apns import devices.db`.
///
/// Goes through the system's SQLite (`libsqlite3.so.0`, Debian's `libsqlite3-0`), loaded with
/// `dlopen` when a database is first opened, as `send-push` loads libcurl: no tool links it, so
/// none pays for it at start-up, and a machine without it fails only the SQLite import (exit 69).
/// The file is opened read-only (a write-ahead log beside it is read too); nothing is written.
package final class SQLiteDatabase {
    /// The 16 bytes every SQLite 3 database file starts with.
    package static let header: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// Whether `data` starts like an SQLite 3 database file.
    package static func isDatabase(_ data: some Collection<UInt8>) -> Bool {
        data.count >= header.count && data.prefix(header.count).elementsEqual(header)
    }

    /// Whether the regular file at `path` starts like an SQLite 3 database file; reads its first
    /// 16 bytes. `false` for a pipe or a device (its bytes would be taken from whoever reads it
    /// next), and for a file that cannot be opened (whoever reads it next says why).
    package static func isDatabase(atPath path: String) -> Bool {
        guard let descriptor = try? PosixFile.openIfPresent(path, flags: O_RDONLY | O_CLOEXEC | O_NONBLOCK) else {
            return false
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return (try? PosixFile.read(descriptor, atMost: header.count, path: path)).map(isDatabase) ?? false
    }

    /// One column's value in a row.
    package enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        /// A blob, of which only the size is kept.
        case blob(byteCount: Int)
    }

    private let library: Library
    private let connection: OpaquePointer
    /// The database file, for messages.
    package let path: String

    /// Opens the database at `path` read-only.
    /// - Throws: `SQLiteError.unavailable` (69) when libsqlite3 cannot be loaded,
    ///   `.unreadable` (65) when the file cannot be opened as a database.
    package init(readingAt path: String) throws(SQLiteError) {
        let library = try Library.load()
        var opened: OpaquePointer?
        let status = library.open(path, &opened, Library.openReadOnly, nil)
        guard status == Library.ok, let connection = opened else {
            let reason = opened.map { library.message(of: $0) } ?? "error \(status)"
            if let opened { _ = library.close(opened) }
            throw .unreadable("\(path): \(reason)")
        }
        self.library = library
        self.connection = connection
        self.path = path
    }

    deinit { _ = library.close(connection) }

    /// Every row `sql` returns, each as its columns' values.
    /// - Throws: `SQLiteError.unreadable` (65) naming the file and SQLite's reason.
    package func rows(_ sql: String) throws(SQLiteError) -> [[Value]] {
        var statement: OpaquePointer?
        guard library.prepare(connection, sql, -1, &statement, nil) == Library.ok, let statement else {
            throw .unreadable("\(path): \(library.message(of: connection))")
        }
        defer { _ = library.finalize(statement) }
        let columns = library.columnCount(statement)
        var rows: [[Value]] = []
        while true {
            let status = library.step(statement)
            if status == Library.done { return rows }
            guard status == Library.row else { throw .unreadable("\(path): \(library.message(of: connection))") }
            var row: [Value] = []
            row.reserveCapacity(Int(columns))
            for column in 0..<columns { row.append(value(statement, column)) }
            rows.append(row)
        }
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> Value {
        switch library.columnType(statement, column) {
        case Library.integer: return .integer(library.columnInt64(statement, column))
        case Library.float: return .real(library.columnDouble(statement, column))
        case Library.null: return .null
        case Library.blob: return .blob(byteCount: Int(library.columnBytes(statement, column)))
        default:
            guard let text = library.columnText(statement, column) else { return .null }
            let count = Int(library.columnBytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        }
    }

    /// The few functions of libsqlite3 used here, resolved with `dlsym`; SQLite's own names and
    /// signatures, constants from `sqlite3.h`.
    private struct Library {
        static let soname = "libsqlite3.so.0"
        static let ok: Int32 = 0
        static let row: Int32 = 100
        static let done: Int32 = 101
        static let openReadOnly: Int32 = 0x0000_0001
        static let integer: Int32 = 1
        static let float: Int32 = 2
        static let blob: Int32 = 4
        static let null: Int32 = 5

        typealias Open =
            @convention(c) (
                UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>, Int32, UnsafePointer<CChar>?
            ) -> Int32
        typealias Prepare =
            @convention(c) (
                OpaquePointer, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<OpaquePointer?>,
                UnsafeMutablePointer<UnsafePointer<CChar>?>?
            ) -> Int32
        typealias StatusOf = @convention(c) (OpaquePointer) -> Int32
        typealias MessageOf = @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
        typealias NumberOfColumn = @convention(c) (OpaquePointer, Int32) -> Int32
        typealias TextOfColumn = @convention(c) (OpaquePointer, Int32) -> UnsafePointer<UInt8>?
        typealias IntegerOfColumn = @convention(c) (OpaquePointer, Int32) -> Int64
        typealias RealOfColumn = @convention(c) (OpaquePointer, Int32) -> Double

        let open: Open
        let close: StatusOf
        let errmsg: MessageOf
        let prepare: Prepare
        let step: StatusOf
        let finalize: StatusOf
        let columnCount: StatusOf
        let columnType: NumberOfColumn
        let columnText: TextOfColumn
        let columnBytes: NumberOfColumn
        let columnInt64: IntegerOfColumn
        let columnDouble: RealOfColumn

        func message(of connection: OpaquePointer) -> String {
            errmsg(connection).map { String(cString: $0) } ?? "unknown SQLite error"
        }

        static func load() throws(SQLiteError) -> Library {
            // Kept open for the life of the process: a second load finds it mapped already.
            let library: RuntimeLibrary
            switch RuntimeLibrary.open(soname, flags: RTLD_LAZY) {
            case .success(let opened): library = opened
            case .failure(let error): throw .unavailable("\(error.reason) (install libsqlite3-0)")
            }
            func symbol<T>(_ name: String, as type: T.Type) throws(SQLiteError) -> T {
                guard let function = library.function(name, as: type) else {
                    throw .unavailable("\(soname) has no \(name)")
                }
                return function
            }
            return Library(
                open: try symbol("sqlite3_open_v2", as: Open.self),
                close: try symbol("sqlite3_close_v2", as: StatusOf.self),
                errmsg: try symbol("sqlite3_errmsg", as: MessageOf.self),
                prepare: try symbol("sqlite3_prepare_v2", as: Prepare.self),
                step: try symbol("sqlite3_step", as: StatusOf.self),
                finalize: try symbol("sqlite3_finalize", as: StatusOf.self),
                columnCount: try symbol("sqlite3_column_count", as: StatusOf.self),
                columnType: try symbol("sqlite3_column_type", as: NumberOfColumn.self),
                columnText: try symbol("sqlite3_column_text", as: TextOfColumn.self),
                columnBytes: try symbol("sqlite3_column_bytes", as: NumberOfColumn.self),
                columnInt64: try symbol("sqlite3_column_int64", as: IntegerOfColumn.self),
                columnDouble: try symbol("sqlite3_column_double", as: RealOfColumn.self)
            )
        }
    }
}

/// Why an SQLite database could not be read.
package enum SQLiteError: PushKitError, Equatable {
    /// libsqlite3 cannot be loaded (exit 69).
    case unavailable(String)
    /// The file is not a database SQLite can read, or a query failed (exit 65).
    case unreadable(String)

    /// 69 or 65.
    package var exitStatus: ExitStatus {
        switch self {
        case .unavailable: .unavailable
        case .unreadable: .dataError
        }
    }

    /// The message, naming the library or the file.
    package var description: String {
        switch self {
        case .unavailable(let reason): "SQLite is not available: \(reason)"
        case .unreadable(let reason): reason
        }
    }
}
