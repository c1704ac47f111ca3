import Testing
@testable import PushKitFreeCore
@testable import PushKitFreeRegistry

@Suite("registry: PostgreSQL failures, tried again or not")
struct PostgresFailureTests {
    @Test("a server that is down, restarting or full is tried again; refusals of the configuration are not")
    func connectionFailures() {
        let temporary = [
            #"connection to server on socket "/tmp/.s.PGSQL.5432" failed: No such file or directory"#,
            #"connection to server at "127.0.0.1", port 5432 failed: Connection refused"#,
            #"connection to server at "db", port 5432 failed: FATAL:  the database system is shutting down"#,
            #"connection to server at "db", port 5432 failed: FATAL:  sorry, too many clients already"#,
        ]
        for message in temporary { #expect(PostgresFailure.connectKind(message) == .connectionLost, "\(message)") }
        let configuration = [
            #"connection to server at "db", port 5432 failed: FATAL:  password authentication failed for user "app""#,
            #"connection to server at "db", port 5432 failed: FATAL:  pg_hba.conf rejects connection for host"#,
            #"connection to server at "db", port 5432 failed: FATAL:  database "nope" does not exist"#,
            "connection to server at \"db\", port 5432 failed: fe_sendauth: no password supplied",
            "invalid URI query parameter: \"bogus\"",
            "root certificate file \"/nope.pem\" does not exist",
        ]
        for message in configuration { #expect(PostgresFailure.connectKind(message) == .misconfigured, "\(message)") }
    }

    @Test("statements: lost connections, shutdowns and serialization failures are tried again, the rest refused")
    func statementFailures() {
        for state in ["08006", "08003", "57P01", "57P03", "40001", "40P01", "53300"] {
            #expect(PostgresFailure(PostgresFailure.statementKind(state), "").isTemporary, "\(state)")
        }
        for state in ["23505", "42501", "42P01", "22P02", nil] {
            #expect(PostgresFailure.statementKind(state) == .refused, "\(state ?? "nil")")
        }
    }
}
