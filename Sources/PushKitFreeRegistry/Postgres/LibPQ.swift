import PushKitFreeCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libpq, PostgreSQL's client library, loaded when a tool first uses a PostgreSQL registry.
///
/// Not linked: linking would make every start of `register-apns` and `send-push` map libpq and its
/// dependencies (OpenSSL, Kerberos, LDAP) whether or not a database is configured. `dlopen` of
/// `libpq.so.5` (Debian's `libpq5`) happens on the first connection instead; the functions are
/// looked up by name and called through C function pointers with libpq's own signatures.
struct LibPQ: @unchecked Sendable {
    typealias Connection = OpaquePointer
    typealias Result = OpaquePointer

    let connectdb: @convention(c) (UnsafePointer<CChar>) -> Connection?
    let status: @convention(c) (Connection?) -> Int32
    let errorMessage: @convention(c) (Connection?) -> UnsafePointer<CChar>?
    let finish: @convention(c) (Connection?) -> Void
    let execParams:
        @convention(c) (
            Connection?, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?,
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> Result?
    let resultStatus: @convention(c) (Result?) -> Int32
    let resultErrorField: @convention(c) (Result?, Int32) -> UnsafePointer<CChar>?
    let resultErrorMessage: @convention(c) (Result?) -> UnsafePointer<CChar>?
    let ntuples: @convention(c) (Result?) -> Int32
    let nfields: @convention(c) (Result?) -> Int32
    let getvalue: @convention(c) (Result?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let getlength: @convention(c) (Result?, Int32, Int32) -> Int32
    let getisnull: @convention(c) (Result?, Int32, Int32) -> Int32
    let clear: @convention(c) (Result?) -> Void
    let sslInUse: @convention(c) (Connection?) -> Int32

    /// `CONNECTION_OK`.
    static let connectionOK: Int32 = 0
    /// `PGRES_COMMAND_OK`, `PGRES_TUPLES_OK`.
    static let commandOK: Int32 = 1
    static let tuplesOK: Int32 = 2
    /// `PG_DIAG_SQLSTATE` ('C').
    static let sqlStateField: Int32 = 67

    /// The SONAME of every libpq since PostgreSQL 8.2.
    static let soname = "libpq.so.5"

    /// libpq, or why it cannot be loaded; loaded once, on first use.
    static let shared: Swift.Result<LibPQ, LoadFailure> = load()

    /// Why libpq could not be loaded.
    struct LoadFailure: Error {
        let message: String
    }

    private static func load() -> Swift.Result<LibPQ, LoadFailure> {
        let library: RuntimeLibrary
        switch RuntimeLibrary.open(soname, flags: RTLD_NOW | RTLD_LOCAL) {
        case .success(let opened): library = opened
        case .failure(let error):
            return .failure(
                LoadFailure(message: "cannot load libpq (\(error.reason)); install it with: apt-get install libpq5"))
        }
        var missing: [String] = []
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let function = library.function(name, as: type) else {
                missing.append(name)
                return nil
            }
            return function
        }
        let loaded = LibPQ(
            connectdb: symbol("PQconnectdb", as: type(of: placeholder.connectdb)) ?? placeholder.connectdb,
            status: symbol("PQstatus", as: type(of: placeholder.status)) ?? placeholder.status,
            errorMessage: symbol("PQerrorMessage", as: type(of: placeholder.errorMessage)) ?? placeholder.errorMessage,
            finish: symbol("PQfinish", as: type(of: placeholder.finish)) ?? placeholder.finish,
            execParams: symbol("PQexecParams", as: type(of: placeholder.execParams)) ?? placeholder.execParams,
            resultStatus: symbol("PQresultStatus", as: type(of: placeholder.resultStatus)) ?? placeholder.resultStatus,
            resultErrorField: symbol("PQresultErrorField", as: type(of: placeholder.resultErrorField))
                ?? placeholder.resultErrorField,
            resultErrorMessage: symbol("PQresultErrorMessage", as: type(of: placeholder.resultErrorMessage))
                ?? placeholder.resultErrorMessage,
            ntuples: symbol("PQntuples", as: type(of: placeholder.ntuples)) ?? placeholder.ntuples,
            nfields: symbol("PQnfields", as: type(of: placeholder.nfields)) ?? placeholder.nfields,
            getvalue: symbol("PQgetvalue", as: type(of: placeholder.getvalue)) ?? placeholder.getvalue,
            getlength: symbol("PQgetlength", as: type(of: placeholder.getlength)) ?? placeholder.getlength,
            getisnull: symbol("PQgetisnull", as: type(of: placeholder.getisnull)) ?? placeholder.getisnull,
            clear: symbol("PQclear", as: type(of: placeholder.clear)) ?? placeholder.clear,
            sslInUse: symbol("PQsslInUse", as: type(of: placeholder.sslInUse)) ?? placeholder.sslInUse
        )
        guard missing.isEmpty else {
            return .failure(
                LoadFailure(message: "\(soname) has no \(missing.joined(separator: ", ")) (libpq too old?)"))
        }
        return .success(loaded)
    }

    /// Stand-ins that are never called: `load()` fails when a symbol is missing.
    private static let placeholder = LibPQ(
        connectdb: { _ in nil }, status: { _ in 1 }, errorMessage: { _ in nil }, finish: { _ in },
        execParams: { _, _, _, _, _, _, _, _ in nil }, resultStatus: { _ in 7 }, resultErrorField: { _, _ in nil },
        resultErrorMessage: { _ in nil }, ntuples: { _ in 0 }, nfields: { _ in 0 }, getvalue: { _, _, _ in nil },
        getlength: { _, _, _ in 0 }, getisnull: { _, _, _ in 1 }, clear: { _ in }, sslInUse: { _ in 0 })
}
