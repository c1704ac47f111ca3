import Testing
@testable import PushKitFreeCore
@testable import PushKitFreeRegistry

@Suite("registry: PostgreSQL URLs")
struct PostgresURLTests {
    @Test("postgres:// and postgresql:// name a database; paths and other schemes a file")
    func databaseURLs() {
        #expect(PostgresURL.isDatabaseURL("postgres://db.example.com/pushkit"))
        #expect(PostgresURL.isDatabaseURL("POSTGRESQL://user@/db?host=/run/postgresql"))
        #expect(!PostgresURL.isDatabaseURL("/var/lib/pushkit/devices.json"))
        #expect(!PostgresURL.isDatabaseURL("postgres.json"))
        #expect(!PostgresURL.isDatabaseURL("mysql://db/pushkit"))
    }

    @Test("a password in the user information or a password parameter is masked; the rest is kept")
    func masking() {
        #expect(PostgresURL.masked("postgres://app:s3cr3t@db:5432/pushkit") == "postgres://app:***@db:5432/pushkit")
        #expect(PostgresURL.masked("postgres://app:p@ss:w@rd@db/pushkit") == "postgres://app:***@db/pushkit")
        #expect(
            PostgresURL.masked("postgresql://app@db/pushkit?sslmode=require&password=hunter2&application_name=x")
                == "postgresql://app@db/pushkit?sslmode=require&password=***&application_name=x")
        #expect(PostgresURL.masked("postgres://app@db/pushkit") == "postgres://app@db/pushkit")
        #expect(PostgresURL.masked("postgresql://@/db?host=/tmp") == "postgresql://@/db?host=/tmp")
        #expect(PostgresURL.masked("/path/devices.json") == "/path/devices.json")
    }

    @Test("state_file set to a URL gives the PostgreSQL registry, anything else the file")
    func configurationChoosesTheStore() throws {
        let database = try Configuration(
            flags: ConfigurationFlags(),
            environment: ["APNS_STATE_FILE": "postgres://u:pw@h/d", "HOME": "/nonexistent"],
            file: ConfigurationFile(path: "/etc/pk.json", exists: false, values: [:]))
        #expect(database.registry() is PostgresRegistry)
        #expect(database.registry().location == "postgres://u:***@h/d")
        #expect(database.registryLocation == "postgres://u:***@h/d")
        let file = try Configuration(
            flags: ConfigurationFlags(),
            environment: ["APNS_STATE_FILE": "/tmp/x/devices.json", "HOME": "/nonexistent"],
            file: ConfigurationFile(path: "/etc/pk.json", exists: false, values: [:]))
        #expect((file.registry() as? StateFileRegistry)?.path == "/tmp/x/devices.json")
    }
}
