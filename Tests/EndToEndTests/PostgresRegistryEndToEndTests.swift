import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The registry in PostgreSQL (`state_file` a `postgres://` URL), through the built tools, against a
/// real server (`RunningPostgres`, one throw-away cluster for the suite, a database per test).
@Suite("PostgreSQL registry: the tools on a shared database", .serialized)
struct PostgresRegistryEndToEndTests {
    let setup: ProviderSetup
    let cluster: RunningPostgres
    let database: String
    /// The provider settings with `APNS_STATE_FILE` the database's socket URL.
    let environment: [String: String]

    init() throws {
        setup = try ProviderSetup()
        cluster = try RunningPostgres.shared.get()
        database = try cluster.database()
        var environment = setup.environment
        environment["APNS_STATE_FILE"] = cluster.socketURL(database)
        self.environment = environment
    }

    /// A 32-byte token: `tag`, filler, `number`.
    static func token(_ tag: Int, _ number: Int) -> String {
        String(format: "%02x", tag) + String(repeating: "5e", count: 27) + String(format: "%08x", number)
    }

    /// `register-apns list --json` on `environment`, by device id.
    func listed(_ environment: [String: String]? = nil) throws -> [String: [String: Any]] {
        let result = try BuiltTool.run(
            "register-apns", ["list", "--json"], environment: environment ?? self.environment)
        result.expectSuccess()
        return try listedDevices(result.stdout)
    }

    // MARK: The operations

    @Test("add, update, rotate, groups, briefing, remove and db migrate, as on the file")
    func operations() throws {
        let migrated = try BuiltTool.run("register-apns", ["db", "migrate"], environment: environment)
        migrated.expectSuccess()
        #expect(migrated.stdout.contains("from schema version 0 to 2"), "\(migrated.stdout)")
        let again = try BuiltTool.run("register-apns", ["db", "migrate"], environment: environment)
        #expect(again.stdout.contains("at schema version 2; nothing to do"), "\(again.stdout)")
        #expect(try cluster.psql(database, "SELECT max(version) FROM pushkit_schema") == "2")

        try BuiltTool.run(
            "register-apns", ["add", "phone", Self.token(1, 1), "--name", "Sven's iPhone", "--group", "family"],
            environment: environment
        ).expectSuccess()
        try BuiltTool.run(
            "register-apns", ["add", "tablet", Self.token(1, 2), "--group", "family"], environment: environment
        )
        .expectSuccess()
        // A token registered under a new id moves to it; a rotated token replaces the old one.
        try BuiltTool.run("register-apns", ["add", "phone-2", Self.token(1, 2)], environment: environment)
            .expectSuccess()
        try BuiltTool.run("register-apns", ["add", "phone", Self.token(1, 3)], environment: environment).expectSuccess()
        var devices = try listed()
        #expect(Set(devices.keys) == ["phone", "phone-2"])
        #expect(devices["phone"]?["token"] as? String == Self.token(1, 3))
        #expect(devices["phone"]?["name"] as? String == "Sven's iPhone")
        #expect(devices["phone"]?["groups"] as? [String] == ["family"])
        #expect(devices["phone-2"]?["token"] as? String == Self.token(1, 2))

        try BuiltTool.run(
            "register-apns", ["briefing", "phone", "--time", "07:30", "--timezone", "Europe/Berlin"],
            environment: environment
        ).expectSuccess()
        devices = try listed()
        let briefing = devices["phone"]?["briefing"] as? [String: Any]
        #expect(briefing?["time"] as? String == "07:30", "\(devices["phone"] ?? [:])")

        let removed = try BuiltTool.run("register-apns", ["remove", "phone-2"], environment: environment)
        removed.expectSuccess()
        #expect(Set(try listed().keys) == ["phone"])
        // The rows: one per device, the token in its unique column, the record as the file holds it.
        #expect(
            try cluster.psql(database, "SELECT device_id, token FROM pushkit_devices") == "phone|\(Self.token(1, 3))")
        #expect(try cluster.psql(database, "SELECT device_id FROM pushkit_removals ORDER BY 1") == "phone-2\ntablet")

        // Nothing matched: 65, the URL named, nothing changed.
        let missing = try BuiltTool.run("register-apns", ["remove", "nobody"], environment: environment)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("no device with id or token \"nobody\" in postgresql://pushkit@/"))
        // `convert` is for a state file.
        let convert = try BuiltTool.run("register-apns", ["convert"], environment: environment)
        #expect(convert.status == 78 && convert.stderr.contains("PostgreSQL registry"), "\(convert.stderr)")
    }

    @Test("send-push on the database: environment learned, delivery recorded, 410 pruned by Apple's timestamp rule")
    func sendPushBookkeeping() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for (id, number) in [("kept", 1), ("pruned", 2), ("delivered", 3)] {
            try BuiltTool.run("register-apns", ["add", id, Self.token(2, number)], environment: environment)
                .expectSuccess()
        }
        // "kept" registered after its 410's time (an hour ago): it stays. "pruned" registered before it.
        let list = try setup.directory.write(
            "unregistered.txt", "\(Self.token(2, 1)) \(now - 3_600_000)\n\(Self.token(2, 2)) \(now + 3_600_000)\n")
        let emulator = try RunningEmulator(["--quiet", "--unregistered-file", list], environment: setup.environment)
        let sent = try BuiltTool.run(
            "send-push", ["--title", "hello", "--environment", "sandbox"],
            environment: emulator.asAPNs(for: environment))
        #expect(sent.status == 0, "a 410 is no failure to deliver: \(sent.stderr)")
        #expect(sent.stderr.contains("1 delivered, 0 failed, 1 pruned, 1 unregistered kept"), "\(sent.stderr)")
        let devices = try listed()
        #expect(Set(devices.keys) == ["kept", "delivered"], "\(sent.stdout) \(sent.stderr)")
        #expect(devices["delivered"]?["environment"] as? String == "sandbox")
        #expect(devices["delivered"]?["last_delivered_at"] is String)
        #expect(devices["kept"]?["last_delivered_at"] is NSNull)
    }

    @Test("content keys in the database: kept in the record, hidden by list, used by send-push --encrypt")
    func contentKeys() throws {
        try BuiltTool.run("register-apns", ["add", "phone", Self.token(3, 1)], environment: environment)
            .expectSuccess()
        try BuiltTool.run("register-apns", ["add", "tablet", Self.token(3, 2)], environment: environment)
            .expectSuccess()
        let made = try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: environment)
        made.expectSuccess()
        let key = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: key)?.count == 32)
        let stored = try cluster.psql(
            database, "SELECT record->>'content_key' FROM pushkit_devices WHERE device_id = 'phone'")
        #expect(stored == key)
        #expect(try listed()["phone"]?["content_key"] == nil)
        // A later registration without a key, through another writer, keeps it.
        try BuiltTool.run("register-apns", ["add", "phone", Self.token(3, 1), "--name", "P"], environment: environment)
            .expectSuccess()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let run = try BuiltTool.run(
            "send-push", ["--encrypt", "--title", "T", "--body", "secret"],
            environment: emulator.asAPNs(for: environment))
        #expect(run.status == 1 && run.stdout.contains("refused"), "\(run.stdout)\(run.stderr)")
        let records = emulator.waitForRecords(1)
        #expect(records.count == 1 && records.first?["device_token"] as? String == Self.token(3, 1))
        let payload = records.first?["payload"] as? [String: Any]
        #expect(payload?["enc"] is String && !(String(describing: payload)).contains("secret"))
    }

    @Test("a name is a device id or a group in the database too: register-apns and import refuse both, exit 65")
    func namesInTheDatabase() throws {
        try BuiltTool.run(
            "register-apns", ["add", "mom", Self.token(7, 1), "--group", "family"], environment: environment
        )
        .expectSuccess()
        let before = try cluster.psql(
            database, "SELECT string_agg(device_id || record::text, ',') FROM pushkit_devices")
        for arguments in [["add", "family", Self.token(7, 2)], ["add", "peer", Self.token(7, 3), "--group", "mom"]] {
            let refused = try BuiltTool.run("register-apns", arguments, environment: environment)
            #expect(refused.status == 65, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("a name is a device or a group, never both"), "\(refused.stderr)")
        }
        let file = try setup.directory.write(
            "import.json", #"{"version": 1, "devices": {"family": {"token": "\#(Self.token(7, 4))"}}}"#)
        let imported = try BuiltTool.run("register-apns", ["import", file], environment: environment)
        #expect(
            imported.status == 65 && imported.stderr.contains("importing would make \"family\""), "\(imported.stderr)")
        #expect(
            try cluster.psql(database, "SELECT string_agg(device_id || record::text, ',') FROM pushkit_devices")
                == before,
            "nothing was written")
    }

    @Test(
        "an FCM device in the database: its transport kept in the record, listed, removed by token; a contradiction flagged"
    )
    func fcmDevice() throws {
        let fcm = fcmTokenText(9)
        try BuiltTool.run("register-apns", ["add", "pixel", fcm, "--name", "Pixel"], environment: environment)
            .expectSuccess()
        try BuiltTool.run("register-apns", ["add", "phone", Self.token(9, 1)], environment: environment)
            .expectSuccess()
        #expect(
            try cluster.psql(
                database, "SELECT device_id, token, record->>'transport' FROM pushkit_devices ORDER BY 1")
                == "phone|\(Self.token(9, 1))|\npixel|\(fcm)|fcm",
            "the FCM record says fcm; the APNs record is as before")
        var devices = try listed()
        #expect(devices["pixel"]?["token"] as? String == fcm && devices["pixel"]?["transport"] as? String == "fcm")
        #expect(devices["phone"]?["transport"] as? String == "apns")
        let table = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(table.stdout.contains("TRANSPORT") && table.stdout.contains(maskedToken(fcm)), "\(table.stdout)")

        // A record whose transport its token contradicts: kept, flagged, never rewritten.
        try cluster.psql(
            database,
            #"UPDATE pushkit_devices SET record = jsonb_set(record, '{transport}', '"apns"') WHERE device_id = 'pixel'"#
        )
        let stored = try cluster.psql(database, "SELECT record::text FROM pushkit_devices WHERE device_id = 'pixel'")
        let flagged = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(flagged.status == 0 && flagged.stdout.contains("UNREADABLE"), "\(flagged.stdout)")
        #expect(flagged.stderr.contains("\"transport\" is apns, but the token is an FCM"), "\(flagged.stderr)")
        try BuiltTool.run("register-apns", ["add", "tablet", fcmTokenText(10)], environment: environment)
            .expectSuccess()
        #expect(
            try cluster.psql(database, "SELECT record::text FROM pushkit_devices WHERE device_id = 'pixel'") == stored)

        let removed = try BuiltTool.run("register-apns", ["remove", fcmTokenText(10)], environment: environment)
        removed.expectSuccess()
        devices = try listed()
        #expect(Set(devices.keys) == ["phone"], "\(removed.stdout)")
    }

    @Test("a record edited by hand in the database that cannot be read: kept, flagged, refused alone; others sent")
    func unreadableRecordInTheDatabase() throws {
        for (id, number) in [("good", 1), ("bad", 2)] {
            try BuiltTool.run("register-apns", ["add", id, Self.token(8, number)], environment: environment)
                .expectSuccess()
        }
        try cluster.psql(
            database,
            #"UPDATE pushkit_devices SET record = jsonb_set(record, '{content_key}', '"c2hvcnQ="') WHERE device_id = 'bad'"#
        )
        let stored = try cluster.psql(database, "SELECT record::text FROM pushkit_devices WHERE device_id = 'bad'")
        let listed = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("UNREADABLE"), "\(listed.stdout)")
        #expect(
            listed.stderr.contains("device \"bad\" in") && listed.stderr.contains("\"content_key\""), "\(listed.stderr)"
        )
        try BuiltTool.run("register-apns", ["add", "other", Self.token(8, 3)], environment: environment).expectSuccess()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let sent = try BuiltTool.run("send-push", ["--title", "T"], environment: emulator.asAPNs(for: environment))
        #expect(sent.status == 1, "\(sent.stdout)\(sent.stderr)")
        #expect(sent.stderr.contains("2 delivered, 1 failed (1 refused: record unreadable)"), "\(sent.stderr)")
        #expect(sent.stdout.contains("refused") && sent.stdout.contains("content_key"), "\(sent.stdout)")
        #expect(
            Set(emulator.waitForRecords(2).compactMap { $0["device_token"] as? String }) == [
                Self.token(8, 1), Self.token(8, 3),
            ])
        #expect(
            try cluster.psql(database, "SELECT record::text FROM pushkit_devices WHERE device_id = 'bad'") == stored,
            "the record was rewritten")
    }

    @Test("prune against concurrent re-registrations of the same device: a re-registration is never lost")
    func pruneAgainstReRegistration() throws {
        let rounds = 6
        for round in 0..<rounds {
            let id = "racer-\(round)", token = Self.token(3, round)
            try BuiltTool.run("register-apns", ["add", id, token], environment: environment).expectSuccess()
            // APNs' 410 says the token was unregistered after that registration, before the ones below.
            usleep(5_000)
            let unregisteredAt = Int64(Date().timeIntervalSince1970 * 1000)
            usleep(5_000)
            let list = try setup.directory.write("unregistered-\(round).txt", "\(token) \(unregisteredAt)\n")
            let emulator = try RunningEmulator(
                ["--quiet", "--unregistered-file", list], environment: setup.environment)
            let sender = try BuiltTool.start(
                "send-push", ["--title", "race", "--device", id], environment: emulator.asAPNs(for: environment))
            // Registrations of the same device while send-push prunes it: each is after the 410's time.
            var acknowledged = 0
            for _ in 0..<4 {
                let result = try BuiltTool.run("register-apns", ["add", id, token], environment: environment)
                if result.status == 0 { acknowledged += 1 }
            }
            _ = try sender.wait()
            #expect(acknowledged == 4)
            #expect(
                try listed()[id]?["token"] as? String == token, "round \(round): the re-registered device was pruned")
        }
    }

    @Test("every writer takes the registry's advisory lock: held by another host's writer, a change waits for it")
    func writersTakeTheAdvisoryLock() throws {
        try BuiltTool.run("register-apns", ["db", "migrate"], environment: environment).expectSuccess()
        // psql (not our code) takes the writers' lock ("PKFR", PostgresSchema.writersLock) for two seconds.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "psql", "-X", "-q", "-h", cluster.directory, "-p", String(cluster.port), "-U", RunningPostgres.user, "-d",
            database, "-c", "SELECT pg_advisory_lock(1347110482)", "-c", "SELECT pg_sleep(2)",
        ]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        let deadline = Date().addingTimeInterval(10)
        while try cluster.psql(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")
            != "1", Date() < deadline
        {
            usleep(10_000)
        }
        let started = Date()
        let added = try BuiltTool.run("register-apns", ["add", "waits", Self.token(13, 1)], environment: environment)
        let waited = Date().timeIntervalSince(started)
        added.expectSuccess()
        #expect(waited > 1.0, "the change did not wait for the lock (\(waited) s)")
        holder.waitUntilExit()
        #expect(try listed()["waits"] != nil)
    }

    @Test("deliveries recorded while the device rotates its token never undo the rotation (writers serialized)")
    func deliveriesDoNotUndoRotations() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let sendEnvironment = emulator.asAPNs(for: environment)
        try BuiltTool.run("register-apns", ["add", "rotating", Self.token(12, 0)], environment: environment)
            .expectSuccess()
        var undone: [Int] = []
        for round in 1...10 {
            // send-push records the delivery by rewriting the device's record; a writer working from
            // a copy read before the rotation committed would put the old token back.
            let senders = try (0..<3).map { _ in
                try BuiltTool.start(
                    "send-push", ["--title", "r", "--device", "rotating"], environment: sendEnvironment)
            }
            let token = Self.token(12, round)
            let added = try BuiltTool.run("register-apns", ["add", "rotating", token], environment: environment)
            added.expectSuccess()
            for sender in senders { _ = try sender.wait() }
            if try listed()["rotating"]?["token"] as? String != token { undone.append(round) }
        }
        #expect(undone.isEmpty, "rotations undone by a concurrent delivery record in rounds \(undone)")
    }

    @Test("import from the state file into the database and list --json back out: the same registry")
    func importRoundTrip() throws {
        let files = try TemporaryDirectory()
        let source = files.file("devices.json")
        var fileEnvironment = setup.environment
        fileEnvironment["APNS_STATE_FILE"] = source
        try BuiltTool.run(
            "register-apns",
            [
                "add", "alpha", Self.token(4, 1), "--name", "Älpha \"quoted\"", "--group", "a", "--group", "b",
                "--model", "iPhone15,2", "--os-version", "17.4", "--app-version", "2.0", "--timezone", "Asia/Tokyo",
            ], environment: fileEnvironment
        ).expectSuccess()
        for number in 2...40 {
            try BuiltTool.run(
                "register-apns", ["add", "device-\(number)", Self.token(4, number)], environment: fileEnvironment
            )
            .expectSuccess()
        }
        // Fields a newer release writes survive the trip, per device and at the top.
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: source))) as? [String: Any])
        var devices = try #require(object["devices"] as? [String: Any])
        var alpha = try #require(devices["alpha"] as? [String: Any])
        alpha["future_field"] = ["nested": [1, 2, 3]]
        devices["alpha"] = alpha
        object["devices"] = devices
        object["future_top"] = "kept"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: source))
        let fromFile = try listed(fileEnvironment)

        let imported = try BuiltTool.run("register-apns", ["import", source], environment: environment)
        imported.expectSuccess()
        #expect(imported.stdout.contains("imported 40 devices"), "\(imported.stdout)")
        let fromDatabase = try listed()
        #expect(NSDictionary(dictionary: fromDatabase).isEqual(to: fromFile), "\(fromDatabase["alpha"] ?? [:])")
        #expect(try cluster.psql(database, "SELECT count(*) FROM pushkit_devices") == "40")

        // And back: the database's list --json imported into a new file lists the same.
        let back = files.file("back.json")
        var backEnvironment = setup.environment
        backEnvironment["APNS_STATE_FILE"] = back
        let lines = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment).stdout
        try BuiltTool.run("register-apns", ["import", "-"], environment: backEnvironment, stdin: Data(lines.utf8))
            .expectSuccess()
        #expect(NSDictionary(dictionary: try listed(backEnvironment)).isEqual(to: fromFile))
    }

    // MARK: Two servers, send-push, kills

    @Test("two serve processes and send-push runs on one database, SIGKILLed at random: every 200 and exit 0 kept")
    func twoServersAndKills() throws {
        var schedule = KillSchedule()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let sendEnvironment = emulator.asAPNs(for: environment)
        try BuiltTool.run("register-apns", ["add", "anchor", Self.token(5, 0)], environment: environment)
            .expectSuccess()
        var acknowledged: [String: String] = [:]
        var figures = (answered: 0, sends: 0, sendsKilled: 0, adds: 0, addsKilled: 0)

        for round in 0..<3 {
            let first = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
            let second = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
            let clients = [
                try RunningTool(
                    CrashConsistencyTests.pythonClient(server: first, round: round * 2, clients: 4), stdin: nil),
                try RunningTool(
                    CrashConsistencyTests.pythonClient(server: second, round: round * 2 + 1, clients: 4), stdin: nil),
            ]
            // Meanwhile: send-push runs (recording deliveries) and register-apns adds, some SIGKILLed.
            let deadline = Date().addingTimeInterval(1.5 + schedule.fraction())
            var killFirstAt = Date().addingTimeInterval(0.3 + schedule.fraction())
            var adds = 0
            while Date() < deadline {
                let sender = try BuiltTool.start(
                    "send-push", ["--title", "r\(round)", "--device", "anchor"], environment: sendEnvironment)
                let id = "cli-\(round)-\(adds)", token = Self.token(6, round * 1000 + adds)
                let adder = try BuiltTool.start("register-apns", ["add", id, token], environment: environment)
                adds += 1
                let killing = schedule.chance(0.4)
                if killing {
                    Thread.sleep(forTimeInterval: schedule.fraction() * 0.05)
                    sender.kill()
                    adder.kill()
                }
                let sent = try sender.wait(), added = try adder.wait()
                figures.sends += 1
                if sender.wasSignaled { figures.sendsKilled += 1 } else { #expect(sent.status == 0, "\(sent.stderr)") }
                if adder.wasSignaled {
                    figures.addsKilled += 1
                } else {
                    #expect(added.status == 0, "\(added.stderr)")
                    if added.status == 0 { acknowledged[id] = token }
                }
                if Date() > killFirstAt, first.process.isRunning {
                    first.terminate(signal: SIGKILL)
                    killFirstAt = .distantFuture
                }
            }
            first.terminate(signal: SIGKILL)
            second.terminate(signal: SIGKILL)
            for client in clients {
                let answers = try client.wait()
                for line in answers.stdout.split(separator: "\n") {
                    let fields = line.split(separator: " ").map(String.init)
                    guard fields.count == 3 else { continue }
                    if fields[0] == "200" {
                        acknowledged[fields[1]] = fields[2]
                        figures.answered += 1
                    } else if fields[0] != "none" {
                        Issue.record("round \(round): answered \(line)")
                    }
                }
            }
            let stored = try listed()
            let lost = acknowledged.filter { stored[$0.key]?["token"] as? String != $0.value }.map(\.key)
            #expect(lost.isEmpty, "seed \(schedule.seed) round \(round): acknowledged but lost: \(lost.prefix(5))")
            #expect(stored["anchor"] != nil)
        }
        #expect(figures.answered > 100, "the servers answered registrations")
        let duplicates = try cluster.psql(database, "SELECT count(*) - count(DISTINCT token) FROM pushkit_devices")
        #expect(duplicates == "0")
        print(
            """
            postgres registry, two servers: seed \(schedule.seed), \(figures.answered) registrations answered 200 by \
            SIGKILLed servers, \(figures.sends) send-push runs (\(figures.sendsKilled) killed), \
            \(acknowledged.count) acknowledged in all, none lost
            """)
    }

    @Test("each of two servers sees the other's registrations, rotations and removals (its copy catches up)")
    func serversSeeEachOther() throws {
        let first = try RunningServe(["--no-auth"], environment: environment)
        let second = try RunningServe(["--no-auth"], environment: environment)
        func listed(_ server: RunningServe) throws -> [String: String] {
            let answer = try server.request("GET", "/api/v1/devices")
            #expect(answer.status == 200, "\(answer.body)")
            let devices = answer.json?["devices"] as? [[String: Any]] ?? []
            return Dictionary(
                uniqueKeysWithValues: devices.compactMap { device in
                    (device["device_id"] as? String).map { ($0, device["token"] as? String ?? "") }
                })
        }
        func register(_ server: RunningServe, _ id: String, _ token: String) throws {
            let body = #"{"device_token": "\#(id)", "apns_token": "\#(token)"}"#
            #expect(try server.request("POST", "/register-apns", json: body).status == 200)
        }
        // Both read once, so both hold a copy before the changes.
        #expect(try listed(first).isEmpty && listed(second).isEmpty)
        try register(first, "one", Self.token(10, 1))
        #expect(try listed(second).keys.sorted() == ["one"])
        try register(second, "two", Self.token(10, 2))
        try register(second, "one", Self.token(11, 3))
        let seenByFirst = try listed(first)
        #expect(seenByFirst.keys.sorted() == ["one", "two"])
        // OpenClaw's routes show the first 16 hex digits.
        #expect(
            seenByFirst["one"] == Self.token(11, 3).prefix(16) + "...", "the rotation reached the first server's copy")
        #expect(try first.request("DELETE", "/api/v1/devices/one").status == 200)
        #expect(try listed(second).keys.sorted() == ["two"], "the removal reached the second server's copy")
        try BuiltTool.run("register-apns", ["remove", "two"], environment: environment).expectSuccess()
        #expect(try listed(first).isEmpty && listed(second).isEmpty)
    }

    @Test("two servers on one database agree on a question: asked on one, answered on the other, waited on the first")
    func questionsAcrossServers() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = emulator.asAPNs(for: environment)
        try BuiltTool.run("register-apns", ["add", "phone", Self.token(12, 1)], environment: env).expectSuccess()
        let first = try RunningServe(["--no-auth"], environment: env)
        let second = try RunningServe(["--no-auth"], environment: env)
        let asked = try first.request(
            "POST", "/v1/questions",
            json: #"{"title": "Ship?", "choices": [{"id": "ship", "title": "Ship"}], "timeout": 3600}"#)
        #expect(asked.status == 201, "\(asked.body)")
        let id = try #require(asked.json?["id"] as? String)
        #expect(try cluster.psql(database, "SELECT record->>'state' FROM pushkit_questions") == "pending")
        let record = try #require(emulator.waitForRecords(1).last)
        let push = try #require((record["payload"] as? [String: Any])?["pushkit"] as? [String: Any])
        let token = try #require(push["answer_token"] as? String)
        // The first server waits; the answer reaches the second; the first sees it at its next look.
        let waiting = try QuestionsEndToEndTests.startWaiting(first.baseURL + "/v1/questions/\(id)?wait=60")
        usleep(300_000)
        let answered = try second.request(
            "POST", "/v1/questions/\(id)/answer", json: #"{"token": "\#(token)", "choice": "ship"}"#)
        #expect(answered.status == 200, "\(answered.body)")
        let status = try QuestionsEndToEndTests.finished(waiting)
        #expect((status["answer"] as? [String: Any])?["choice"] as? String == "ship", "\(status)")
        let again = try first.request(
            "POST", "/v1/questions/\(id)/answer", json: #"{"token": "\#(token)", "choice": "ship"}"#)
        #expect(again.status == 409, "the first answer wins on every server: \(again.body)")
    }

    // MARK: Restarts and outages

    @Test("a database restart mid-run is survived: serve and register-apns retry, nothing acknowledged lost")
    func databaseRestart() throws {
        try BuiltTool.run("register-apns", ["db", "migrate"], environment: environment).expectSuccess()
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
        let client = try RunningTool(
            CrashConsistencyTests.pythonClient(server: server, round: 90, clients: 4), stdin: nil)
        // Once registrations flow, restart the database under them, and register from the CLI meanwhile.
        let flowing = Date().addingTimeInterval(20)
        while try cluster.psql(database, "SELECT count(*) FROM pushkit_devices") == "0", Date() < flowing {
            usleep(20_000)
        }
        let adder = try BuiltTool.start(
            "register-apns", ["add", "during-restart", Self.token(7, 1)], environment: environment)
        try cluster.restart()
        let added = try adder.wait()
        #expect(added.status == 0, "\(added.stderr)")
        // Registrations after the restart are answered too.
        let after = Date().addingTimeInterval(20)
        let countAfterRestart = Int(try cluster.psql(database, "SELECT count(*) FROM pushkit_devices")) ?? 0
        while Int(try cluster.psql(database, "SELECT count(*) FROM pushkit_devices")) ?? 0 < countAfterRestart + 50,
            Date() < after
        {
            usleep(20_000)
        }
        let final = Int(try cluster.psql(database, "SELECT count(*) FROM pushkit_devices")) ?? 0
        #expect(final >= countAfterRestart + 50, "registrations were answered after the restart")
        server.terminate(signal: SIGKILL)
        let answers = try client.wait()
        var acknowledged: [String: String] = [:]
        for line in answers.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 3 else { continue }
            if fields[0] == "200" { acknowledged[fields[1]] = fields[2] }
            #expect(fields[0] == "200" || fields[0] == "none", "answered \(line)")
        }
        let stored = try listed()
        #expect(stored["during-restart"] != nil)
        let lost = acknowledged.filter { stored[$0.key]?["token"] as? String != $0.value }.map(\.key)
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.prefix(5))")
    }

    @Test("the database down: exit 75 and 503 with Retry-After after the retries, the URL masked, then back")
    func databaseDown() throws {
        var quick = environment
        quick["PUSHKIT_REGISTRY_RETRY_SECONDS"] = "1"
        // A password in the URL (trust ignores it) must never be shown.
        quick["APNS_STATE_FILE"] = cluster.tcpURL(database, userInfo: "pushkit:hunter2-secret")
        try BuiltTool.run("register-apns", ["add", "before", Self.token(8, 1)], environment: quick).expectSuccess()
        let server = try RunningServe(["--no-auth"], environment: quick)
        cluster.stop()
        var restarted = false
        defer { if !restarted { try? cluster.start() } }
        let started = Date()
        let add = try BuiltTool.run("register-apns", ["add", "while-down", Self.token(8, 2)], environment: quick)
        #expect(add.status == 75, "\(add.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(add.stderr.contains("the device registry postgres://pushkit:***@127.0.0.1:"), "\(add.stderr)")
        #expect(add.stderr.contains("cannot be reached"), "\(add.stderr)")
        #expect(!add.stderr.contains("hunter2"))
        let answer = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "http-down", "apns_token": "\#(Self.token(8, 3))"}"#)
        #expect(answer.status == 503, "\(answer.body)")
        #expect(answer.headers["retry-after"] == "5" || answer.headers["Retry-After"] == "5", "\(answer.headers)")
        #expect(!server.stderr.contains("hunter2"))
        let list = try BuiltTool.run("register-apns", ["list"], environment: quick)
        #expect(list.status == 75)
        let health = try server.request("GET", "/health")
        #expect(
            health.status == 503 && health.body.contains("the registry's database cannot be reached"), "\(health.body)")
        #expect(!health.body.contains("127.0.0.1"), "the answer names no host: \(health.body)")

        try cluster.start()
        restarted = true
        let back = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "http-back", "apns_token": "\#(Self.token(8, 4))"}"#)
        #expect(back.status == 200, "\(back.body)")
        #expect(try server.request("GET", "/health").status == 200)
        #expect(Set(try listed().keys) == ["before", "http-back"])
    }

    // MARK: TLS and passwords

    @Test("TLS to the database with sslmode=verify-full, and PGPASSFILE honoured; failures are 78, no secret shown")
    func tlsAndPasswordFile() throws {
        // The TLS user is admitted only over TLS (pg_hba: hostssl), so success proves encryption.
        var tls = environment
        tls["APNS_STATE_FILE"] = cluster.tcpURL(
            database, userInfo: RunningPostgres.tlsUser, query: "sslmode=verify-full&sslrootcert=\(cluster.certificate)"
        )
        try BuiltTool.run("register-apns", ["add", "over-tls", Self.token(9, 1)], environment: tls).expectSuccess()
        #expect(Set(try listed(tls).keys) == ["over-tls"])
        let doctor = try BuiltTool.run("apns-jwt", ["check"], environment: tls)
        #expect((doctor.stdout + doctor.stderr).contains("PostgreSQL (TLS), 1 device"), "\(doctor.stdout)")

        var plain = tls
        plain["APNS_STATE_FILE"] = cluster.tcpURL(database, userInfo: RunningPostgres.tlsUser, query: "sslmode=disable")
        let refused = try BuiltTool.run("register-apns", ["list"], environment: plain)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains("pg_hba.conf"), "\(refused.stderr)")

        // The password from PGPASSFILE, never from the URL.
        let files = try TemporaryDirectory()
        let passfile = try files.write(
            "pgpass", "127.0.0.1:\(cluster.port):*:\(RunningPostgres.passwordUser):\(RunningPostgres.password)\n")
        var password = environment
        password["APNS_STATE_FILE"] = cluster.tcpURL(database, userInfo: RunningPostgres.passwordUser)
        password["PGPASSFILE"] = passfile
        try BuiltTool.run("register-apns", ["add", "with-password", Self.token(9, 2)], environment: password)
            .expectSuccess()
        #expect(Set(try listed(password).keys) == ["over-tls", "with-password"])

        password["PGPASSFILE"] = files.file("missing")
        let noPassword = try BuiltTool.run("register-apns", ["list"], environment: password)
        #expect(noPassword.status == 78, "\(noPassword.stderr)")
        password["APNS_STATE_FILE"] = cluster.tcpURL(database, userInfo: "\(RunningPostgres.passwordUser):wrong-guess")
        let wrong = try BuiltTool.run("register-apns", ["list"], environment: password)
        #expect(wrong.status == 78 && wrong.stderr.contains("password authentication failed"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("wrong-guess"))
    }
}
