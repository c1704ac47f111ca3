import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A throw-away PostgreSQL cluster from Debian's `postgresql` package: `initdb` in a temporary
/// directory, the server on a Unix socket in that directory and on a free loopback port, with TLS
/// (a self-signed certificate made by openssl) and password authentication for one user. Started
/// once per test process (`shared`), stopped and removed when the process exits; each test takes a
/// database of its own (`database()`).
///
/// As root, the server runs as the `postgres` user (it refuses to run as root), through `setpriv`,
/// which execs it: the `Process` started is the server itself. It runs in the foreground rather than
/// through `pg_ctl start`, whose daemon keeps a descriptor Foundation's `Process` watches for the
/// end of `pg_ctl` open, so waiting for `pg_ctl` never returns.
final class RunningPostgres: Sendable {
    /// The superuser the tools connect as over the socket and over TCP (trusted, no password).
    static let user = "pushkit"
    /// A user that must authenticate with `password` (scram-sha-256) over TCP.
    static let passwordUser = "secretuser"
    static let password = "s3cret-pass"
    /// A user admitted over TCP only with TLS.
    static let tlsUser = "tlsuser"

    let directory: String
    let port: Int
    /// The certificate the server presents (self-signed for localhost and 127.0.0.1): the CA to trust.
    let certificate: String
    private let binDirectory: String
    private let databases = Mutex(0)
    /// The running server; `nil` while stopped.
    private let server = Mutex<Process?>(nil)

    /// The cluster of this test process, started on first use.
    static let shared: Result<RunningPostgres, any Error> = Result { try RunningPostgres() }

    private init() throws {
        guard
            let version = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").sorted().last
        else { throw PostgresSetupError("no PostgreSQL server in /usr/lib/postgresql (make deps installs it)") }
        binDirectory = "/usr/lib/postgresql/\(version)/bin"
        directory = "/tmp/pushkit-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try LoopbackPort.unused()
        let files = try TemporaryDirectory()
        let made = try files.selfSignedCertificate(named: "postgres")
        certificate = directory + "/ca.pem"
        try FileManager.default.copyItem(atPath: made.certificate, toPath: certificate)
        try FileManager.default.copyItem(atPath: made.key, toPath: directory + "/server-key.pem")
        chmod(directory + "/server-key.pem", 0o600)
        if geteuid() == 0 { try Self.chown(directory) }

        try runAsServer("initdb", ["-D", directory + "/data", "-U", Self.user, "-A", "trust", "--no-sync"])
        let hba = """
            local all all trust
            hostssl all \(Self.tlsUser) 127.0.0.1/32 trust
            hostnossl all \(Self.tlsUser) 127.0.0.1/32 reject
            host all \(Self.passwordUser) 127.0.0.1/32 scram-sha-256
            host all \(Self.user) 127.0.0.1/32 trust
            """
        try Data((hba + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/data/pg_hba.conf"))
        let settings = """
            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = '\(directory)'
            ssl = on
            ssl_cert_file = '\(certificate)'
            ssl_key_file = '\(directory)/server-key.pem'
            fsync = off
            max_connections = 200
            """
        let configuration = directory + "/data/postgresql.conf"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: configuration))
        handle.seekToEndOfFile()
        handle.write(Data(("\n" + settings + "\n").utf8))
        try handle.close()
        if geteuid() == 0 { try Self.chown(directory) }
        try start()
        atexit { RunningPostgres.stopShared() }
        try psql(
            "postgres",
            """
            CREATE ROLE \(Self.passwordUser) LOGIN SUPERUSER PASSWORD '\(Self.password)';
            CREATE ROLE \(Self.tlsUser) LOGIN SUPERUSER;
            """)
    }

    /// Stops the shared cluster and removes its directory (at the test process's exit).
    private static func stopShared() {
        guard case .success(let cluster) = shared else { return }
        cluster.stop(signal: SIGQUIT)
        try? FileManager.default.removeItem(atPath: cluster.directory)
    }

    /// Starts the server and waits until it accepts connections.
    func start() throws {
        let process = Process()
        let program = binDirectory + "/postgres"
        let arguments = ["-D", directory + "/data"]
        if geteuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", program] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let log = directory + "/server.log"
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        server.withLock { $0 = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else { break }
            let ready = try BuiltTool.runSystem("pg_isready", ["-q", "-h", directory, "-p", String(port)])
            if ready.status == 0 { return }
            usleep(20_000)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw PostgresSetupError("the PostgreSQL server did not start: \(text.suffix(800))")
    }

    /// Stops the server: SIGINT is PostgreSQL's fast shutdown (connections closed, a clean stop).
    func stop(signal: Int32 = SIGINT) {
        guard
            let process = server.withLock({ server in
                defer { server = nil }
                return server
            })
        else { return }
        Foundation.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// A fast shutdown and a new start, as `pg_ctl restart -m fast`: every connection is closed, the
    /// server is gone for a moment.
    func restart() throws {
        stop()
        try start()
    }

    /// A new empty database; its name.
    func database() throws -> String {
        let number = databases.withLock { count in
            count += 1
            return count
        }
        let name = "registry_\(getpid())_\(number)"
        try psql("postgres", "CREATE DATABASE \(name)")
        return name
    }

    /// The URL of `database` over the Unix socket, as the superuser.
    func socketURL(_ database: String) -> String {
        "postgresql://\(Self.user)@/\(database)?host=\(directory)&port=\(port)"
    }

    /// The URL of `database` over TCP on loopback; `userInfo` is `user` or `user:password`.
    func tcpURL(_ database: String, userInfo: String = RunningPostgres.user, query: String = "") -> String {
        "postgres://\(userInfo)@127.0.0.1:\(port)/\(database)" + (query.isEmpty ? "" : "?" + query)
    }

    /// Runs SQL with `psql` (not our code) on `database`; the output, unaligned, tuples only.
    @discardableResult
    func psql(_ database: String, _ sql: String) throws -> String {
        let result = try BuiltTool.runSystem(
            "psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", String(port), "-U",
                Self.user, "-d", database, "-c", sql,
            ])
        guard result.status == 0 else { throw PostgresSetupError("psql: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    private func runAsServer(_ program: String, _ arguments: [String]) throws -> ToolResult {
        let path = binDirectory + "/" + program
        let result =
            geteuid() == 0
            ? try BuiltTool.runSystem("runuser", ["-u", "postgres", "--", path] + arguments, directory: "/")
            : try BuiltTool.runSystem(path, arguments)
        guard result.status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw PostgresSetupError("\(program) failed (exit \(result.status)): \(result.stderr) \(log.suffix(800))")
        }
        return result
    }

    private static func chown(_ path: String) throws {
        let result = try BuiltTool.runSystem("chown", ["-R", "postgres:postgres", path])
        guard result.status == 0 else { throw PostgresSetupError("chown: \(result.stderr)") }
    }
}

struct PostgresSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
