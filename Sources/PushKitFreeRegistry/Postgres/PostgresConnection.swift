#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// One libpq connection: statements with text parameters, rows of text values.
///
/// Not thread-safe: `PostgresSession` uses it under its lock.
final class PostgresConnection {
    private let library: LibPQ
    private let handle: LibPQ.Connection

    /// Connects to `url` (a libpq connection URL, with the `PG*` environment and `PGPASSFILE` filling
    /// in what it leaves out).
    init(url: String) throws(PostgresFailure) {
        let library: LibPQ
        switch LibPQ.shared {
        case .success(let loaded): library = loaded
        case .failure(let failure): throw PostgresFailure(.misconfigured, failure.message)
        }
        guard let handle = library.connectdb(url) else {
            throw PostgresFailure(.connectionLost, "libpq could not allocate a connection")
        }
        guard library.status(handle) == LibPQ.connectionOK else {
            let message = Self.text(library.errorMessage(handle)) ?? "cannot connect"
            library.finish(handle)
            throw PostgresFailure(PostgresFailure.connectKind(message), message)
        }
        self.library = library
        self.handle = handle
    }

    deinit { library.finish(handle) }

    /// Whether the connection still works (libpq notices a lost one when a statement fails).
    var isUsable: Bool { library.status(handle) == LibPQ.connectionOK }

    /// Whether the connection is encrypted with TLS.
    var usesTLS: Bool { library.sslInUse(handle) == 1 }

    /// Runs one statement; `$1`, `$2`... are `parameters`, sent as text.
    /// - Returns: the rows, each value its text (`nil` for SQL NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String] = []) throws(PostgresFailure) -> [[Data?]] {
        try execute(sql, bytes: parameters.map { Array($0.utf8) })
    }

    /// Runs one statement whose parameters are UTF-8 bytes (a large JSON document, not copied into a `String`).
    @discardableResult
    func execute(_ sql: String, bytes parameters: [[UInt8]]) throws(PostgresFailure) -> [[Data?]] {
        // libpq takes text parameters as NUL-terminated strings.
        let values = parameters.map { bytes -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
            buffer[bytes.count] = 0
            return buffer
        }
        defer { for value in values { value.deallocate() } }
        let pointers = values.map { UnsafePointer<CChar>?(UnsafePointer($0)) }
        let result = pointers.withUnsafeBufferPointer { buffer in
            library.execParams(handle, sql, Int32(values.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        defer { library.clear(result) }
        let status = library.resultStatus(result)
        guard status == LibPQ.commandOK || status == LibPQ.tuplesOK else {
            let message =
                Self.text(library.resultErrorMessage(result)) ?? Self.text(library.errorMessage(handle))
                ?? "the statement failed"
            let sqlState = Self.text(library.resultErrorField(result, LibPQ.sqlStateField))
            let kind: PostgresFailure.Kind = isUsable ? PostgresFailure.statementKind(sqlState) : .connectionLost
            throw PostgresFailure(kind, message, sqlState: sqlState)
        }
        guard status == LibPQ.tuplesOK else { return [] }
        let count = library.ntuples(result)
        return (0..<count).map { row in
            (0..<library.nfields(result)).map { column -> Data? in
                guard library.getisnull(result, row, column) == 0, let value = library.getvalue(result, row, column)
                else { return nil }
                return Data(bytes: value, count: Int(library.getlength(result, row, column)))
            }
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let lines = String(cString: pointer).split(separator: "\n").map { String($0).trimmingWhitespace }
        let text = lines.filter { !$0.isEmpty }.joined(separator: "; ")
        return text.isEmpty ? nil : text
    }
}

/// A failed connection or statement: libpq's message, and whether trying again may help.
struct PostgresFailure: Error {
    enum Kind {
        /// The connection could not be made or was lost; try again on a new one.
        case connectionLost
        /// The server asks to try again (serialization failure, deadlock, too many connections).
        case transient
        /// Trying again cannot help until the configuration changes (libpq missing, authentication).
        case misconfigured
        /// The server refused the statement.
        case refused
    }

    let kind: Kind
    let message: String
    let sqlState: String?

    init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    /// Whether trying again on a fresh connection may succeed.
    var isTemporary: Bool { kind == .connectionLost || kind == .transient }

    /// A failed connection attempt, by libpq's message: the server's refusals (authentication,
    /// `pg_hba.conf`, no such database or role) and the client's (a bad URL, TLS, no password) are
    /// configuration, which trying again cannot fix; the rest (refused, no socket, the server
    /// starting or shutting down, too many clients) is temporary.
    static func connectKind(_ message: String) -> Kind {
        let temporary = ["the database system is", "too many clients", "Connection refused", "No such file"]
        if temporary.contains(where: message.contains) { return .connectionLost }
        let configuration = [
            "FATAL:", "invalid", "certificate", "SSL", "ssl", "no password supplied", "missing \"=\"",
            "unrecognized", "could not translate host name",
        ]
        return configuration.contains(where: message.contains) ? .misconfigured : .connectionLost
    }

    /// A failed statement on a working connection, by SQLSTATE.
    static func statementKind(_ sqlState: String?) -> Kind {
        guard let sqlState else { return .refused }
        if sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") { return .connectionLost }
        return ["40001", "40P01", "53300", "55P03"].contains(sqlState) ? .transient : .refused
    }
}
