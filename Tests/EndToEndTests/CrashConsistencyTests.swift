import Foundation
import Synchronization
import Testing

/// Crash consistency: the built tools SIGKILLed at random
/// moments while other processes write the same devices file. After every crash the file must parse
/// (with `JSONSerialization` and with `register-apns list --json`), stay 0600, hold only whole
/// devices, and keep every registration that was acknowledged: exit 0 from `register-apns add`,
/// HTTP 200 from `register-apns serve`. A registration whose writer was killed may or may not be
/// there. `send-push` killed while pruning removes no device that was not answered 410.
///
/// Kills come from a seeded schedule (`KillSchedule`: the seed is printed, `PUSHKIT_CRASH_SEED`
/// repeats it): some after a random delay, anywhere in a process's life, and some the moment the
/// process creates its temporary file beside the state file (`TemporaryFileTrigger`), so they land
/// in the write, the fsync or the rename. `PUSHKIT_SOAK_SCALE=10` runs ten times the processes and
/// rounds.
@Suite("crash consistency: SIGKILL during concurrent writes", .serialized)
struct CrashConsistencyTests {
    let setup: ProviderSetup
    let stateFile: String
    let environment: [String: String]

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
        var environment = setup.environment
        environment["APNS_STATE_FILE"] = stateFile
        self.environment = environment
    }

    /// A 32-byte token: `tag`, filler, `number`.
    static func token(_ tag: Int, _ number: Int) -> String {
        String(format: "%02x", tag) + String(repeating: "c7", count: 27) + String(format: "%08x", number)
    }

    // MARK: register-apns add

    @Test("register-apns add storm: writers SIGKILLed at random moments, nothing acknowledged lost")
    func addStorm() throws {
        var schedule = KillSchedule()
        let total = 400 * KillSchedule.scale, concurrency = 8
        var expected = try prefill((0..<300).map { ("before-\($0)", Self.token(0x10, $0)) })
        let trigger = try TemporaryFileTrigger(stateFile: stateFile)
        defer { trigger.stop() }

        // How long one add takes with this many at once, to spread the delayed kills over it.
        let calibration = try WriterStorm.run(
            count: concurrency, concurrency: concurrency, environment: environment, trigger: trigger,
            plan: { _ in .never }, registration: { ("calibration-\($0)", Self.token(0x11, $0)) })
        for outcome in calibration { expected[outcome.id] = outcome.token }
        let typical = calibration.map(\.duration).sorted()[concurrency / 2]

        let plans: [KillPlan] = (0..<total).map { _ in
            guard schedule.chance(1.0 / 3) else { return .never }
            return schedule.chance(0.5) ? schedule.writeKill() : .after(schedule.fraction() * typical)
        }
        let started = Date()
        let outcomes = try WriterStorm.run(
            count: total, concurrency: concurrency, environment: environment, trigger: trigger,
            plan: { plans[$0] }, registration: { ("storm-\($0)", Self.token(0x12, $0)) })
        let elapsed = Date().timeIntervalSince(started)
        for outcome in outcomes { expected[outcome.id] = outcome.token }
        let leftovers = temporaryFiles()

        let stored = try checkedRegistry(expected: expected)
        let acknowledged = calibration + outcomes.filter(\.acknowledged)
        let lost = acknowledged.filter { stored[$0.id] != $0.token }
        let killed = outcomes.filter(\.killed)
        let failed = outcomes.filter { !$0.killed && !$0.acknowledged }
        #expect(lost.isEmpty, "seed \(schedule.seed): acknowledged but lost: \(lost.prefix(5).map(\.id))")
        #expect(
            failed.isEmpty,
            "seed \(schedule.seed): not killed, yet failed: \(failed.prefix(3).map { "\($0.id) exit \($0.status): \($0.stderr)" })"
        )
        #expect(stored.count == 300 + acknowledged.count + killed.filter { stored[$0.id] != nil }.count)
        let killedWriting = killed.filter(\.killedWriting)
        #expect(
            killed.count > total / 5 && killedWriting.count > total / 20,
            "seed \(schedule.seed): too few kills: \(killed.count), \(killedWriting.count) while writing")

        // A later writer cleans up what the killed ones left and succeeds.
        try BuiltTool.run("register-apns", ["after-the-storm", Self.token(0x13, 0)], environment: environment)
            .expectSuccess()
        expected["after-the-storm"] = Self.token(0x13, 0)
        #expect(try checkedRegistry(expected: expected)["after-the-storm"] != nil)
        #expect(
            temporaryFiles().isEmpty,
            "temporary files of killed writers are removed by the next writer: \(temporaryFiles())")

        print(
            """
            crash consistency, register-apns add: seed \(schedule.seed), \(outcomes.count + calibration.count) processes \
            (\(concurrency) at a time, \(String(format: "%.1f", elapsed)) s), \(killed.count) killed \
            (\(killedWriting.count) at their registry write, \(killed.count - killedWriting.count) after 0-\(Int(typical * 1000)) ms), \
            \(killed.filter { stored[$0.id] != nil }.count) of them landed, \(acknowledged.count) acknowledged, \(lost.count) lost, \
            \(leftovers.count) temporary files left until the next write
            """)
    }

    // MARK: send-push

    @Test(
        "send-push SIGKILLed while pruning, with writers adding devices: only 410 devices go, nothing acknowledged lost"
    )
    func sendPushKilledWhilePruning() throws {
        var schedule = KillSchedule()
        let rounds = 6 * KillSchedule.scale, deadPerRound = 150
        let keep = (0..<150).map { ("keep-\($0)", Self.token(0x20, $0)) }
        var expected = try prefill(keep)
        var dead: [String: String] = [:]
        let trigger = try TemporaryFileTrigger(stateFile: stateFile)
        defer { trigger.stop() }
        var figures = (killed: 0, killedWriting: 0, finished: 0, pruned: 0, registered: 0, acknowledged: 0, lost: 0)
        var acknowledged: [String: String] = [:]
        var runTime: TimeInterval = 2

        for round in 0..<rounds {
            // Fresh devices to prune, then an emulator that answers 410 for all of them (timed after they registered).
            let fresh = (0..<(deadPerRound - dead.count)).map {
                ("dead-\(round)-\($0)", Self.token(0x21, round * 1000 + $0))
            }
            if !fresh.isEmpty { expected.merge(try prefill(fresh)) { _, new in new } }
            for (id, token) in fresh { dead[id] = token }
            let emulator = try startEmulator(answering410: Array(dead.values))
            let env = emulator.asAPNs(for: environment)

            let writers = WriterStorm(
                count: nil, concurrency: 2, environment: env, trigger: nil, plan: { _ in .never },
                registration: { ("during-\(round)-\($0)", Self.token(0x22, round * 100_000 + $0)) })
            // Delays over the whole run: up to 1.2 times the last run measured to its registry write.
            let plan: KillPlan =
                schedule.chance(0.5) ? schedule.writeKill() : .after(schedule.fraction() * runTime * 1.2)
            let started = Date()
            let push = try BuiltTool.start("send-push", ["--title", "crash test", "--json"], environment: env)
            try apply(plan, to: push, trigger: trigger)
            let result = try push.wait()
            let duration = Date().timeIntervalSince(started)
            trigger.disarm(push.process.processIdentifier)
            let outcomes = try writers.stop()
            for outcome in outcomes { expected[outcome.id] = outcome.token }
            for outcome in outcomes where outcome.acknowledged { acknowledged[outcome.id] = outcome.token }

            let stored = try checkedRegistry(expected: expected)
            let lostKeep = keep.filter { stored[$0.0] != $0.1 }.map(\.0)
            let lostWritten = acknowledged.filter { stored[$0.key] != $0.value }.map(\.key)
            #expect(
                lostKeep.isEmpty,
                "seed \(schedule.seed) round \(round): a device never answered 410 was removed: \(lostKeep.prefix(5))")
            #expect(
                lostWritten.isEmpty,
                "seed \(schedule.seed) round \(round): acknowledged but lost: \(lostWritten.prefix(5))")
            #expect(
                outcomes.allSatisfy { $0.acknowledged },
                "writers are not killed here: \(outcomes.filter { !$0.acknowledged }.prefix(2).map(\.stderr))")
            let remaining = dead.filter { stored[$0.key] != nil }
            if push.wasSignaled {
                figures.killed += 1
                if trigger.killed(push.process.processIdentifier) {
                    figures.killedWriting += 1
                    runTime = duration
                }
            } else {
                runTime = duration
                #expect(
                    result.status == 0,
                    "seed \(schedule.seed) round \(round): \(plan), exit \(result.status): \(result.stderr)")
                #expect(remaining.isEmpty, "a finished run prunes every 410 device")
                figures.finished += 1
            }
            figures.pruned += dead.count - remaining.count
            figures.registered += outcomes.count
            figures.lost += lostKeep.count + lostWritten.count
            print(
                "crash consistency, send-push round \(round): \(plan), \(push.wasSignaled ? "killed" : "exit \(result.status)") after "
                    + String(format: "%.0f ms", duration * 1000)
                    + ", pruned \(dead.count - remaining.count) of \(dead.count), "
                    + "\(outcomes.count) registered meanwhile")
            for id in dead.keys where remaining[id] == nil { expected[id] = nil }
            dead = remaining
        }

        // A run nobody kills prunes what is left and exits 0, as documented (410s pruned count as handled).
        let emulator = try startEmulator(answering410: Array(dead.values))
        let final = try BuiltTool.run(
            "send-push", ["--title", "crash test", "--json"], environment: emulator.asAPNs(for: environment))
        #expect(final.status == 0, "\(final.stderr)")
        let reports = jsonLines(final.stdout)
        #expect(
            reports.filter { $0["outcome"] as? String == "unregistered" && $0["pruned"] as? Bool == true }.count
                == dead.count)
        #expect(final.stderr.contains("\(dead.count) pruned"), "\(final.stderr)")
        figures.pruned += dead.count
        for id in dead.keys { expected[id] = nil }
        let stored = try checkedRegistry(expected: expected)
        #expect(stored.keys.filter { $0.hasPrefix("dead-") }.isEmpty, "every 410 device is gone")
        #expect(stored.count == keep.count + acknowledged.count, "the kept and the acknowledged devices, nothing else")
        figures.acknowledged = acknowledged.count

        print(
            """
            crash consistency, send-push: seed \(schedule.seed), \(rounds) runs killed at random (\(figures.killed) killed, \
            \(figures.killedWriting) of them at the write of the pruned registry, \(figures.finished) finished first) + 1 final run; \
            \(figures.pruned) devices pruned, all answered 410; \(figures.registered) register-apns add processes meanwhile, \
            \(figures.acknowledged) acknowledged, \(figures.lost) lost
            """)
    }

    // MARK: register-apns serve

    @Test("register-apns serve SIGKILLed with registrations in flight, restarted on the same file: every 200 kept")
    func serveKilledInFlight() throws {
        // The whole-file write, killed at its temporary file: the rounds at PUSHKIT_SOAK_SCALE=10 make
        // the file pass 1 MiB, where serve would append to the journal instead and write no temporary
        // file to kill at. The journal's own crash test is ServeJournalTests.killedWhileJournaling.
        var environment = self.environment
        environment["PUSHKIT_REGISTRY_JOURNAL_BYTES"] = String(Int.max)
        var schedule = KillSchedule()
        let rounds = 5 * KillSchedule.scale, clients = 8
        var acknowledged: [String: String] = [:]
        var figures = (requests: 0, unanswered: 0, unansweredKept: 0, killedWriting: 0, lost: 0)
        try FileManager.default.createDirectory(
            atPath: setup.directory.file("state"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let trigger = try TemporaryFileTrigger(stateFile: stateFile)
        defer { trigger.stop() }

        for round in 0..<rounds {
            let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
            let pid = server.process.processIdentifier
            let plan: KillPlan =
                schedule.chance(0.5)
                ? schedule.writeKill(count: schedule.number(in: 1...40)) : .after(schedule.fraction() * 0.5)
            let writesBefore = trigger.created
            let client = try RunningTool(Self.pythonClient(server: server, round: round, clients: clients), stdin: nil)
            switch plan {
            case .onTemporaryFile(let count, let delay):
                trigger.arm(pid, count: count, delay: delay)
                let deadline = Date().addingTimeInterval(30)
                while server.process.isRunning, Date() < deadline { usleep(1_000) }
                trigger.disarm(pid)
            case .after(let delay):
                // Once the server has written a batch, so requests are in flight.
                let deadline = Date().addingTimeInterval(30)
                while trigger.created == writesBefore, Date() < deadline { usleep(1_000) }
                Thread.sleep(forTimeInterval: delay)
            case .never:
                break
            }
            #expect(
                server.process.isRunning || trigger.killed(pid),
                "seed \(schedule.seed) round \(round): the server ended by itself: \(server.crashReport)")
            server.terminate(signal: SIGKILL)
            let answers = try client.wait()
            #expect(answers.status == 0, "the client: \(answers.stderr)")

            var unanswered: [(String, String)] = []
            for line in answers.stdout.split(separator: "\n") {
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count == 3 else { continue }
                switch fields[0] {
                case "200": acknowledged[fields[1]] = fields[2]
                case "none": unanswered.append((fields[1], fields[2]))
                default: Issue.record("seed \(schedule.seed) round \(round): answered \(line)")
                }
            }
            let stored = try checkedRegistry(expected: nil)
            let lost = acknowledged.filter { stored[$0.key] != $0.value }.map(\.key)
            #expect(
                lost.isEmpty, "seed \(schedule.seed) round \(round) (\(plan)): answered 200 but lost: \(lost.prefix(5))"
            )
            let answered = answers.stdout.split(separator: "\n").filter { $0.hasPrefix("200 ") }.count
            for (id, token) in unanswered where stored[id] != nil { #expect(stored[id] == token) }
            let extra = Set(stored.keys).subtracting(acknowledged.keys).subtracting(unanswered.map(\.0))
            #expect(
                extra.allSatisfy { $0.hasPrefix("serve-") }, "only the devices the clients sent: \(extra.prefix(3))")
            if trigger.killed(pid) { figures.killedWriting += 1 }
            figures.requests += answered + unanswered.count
            figures.unanswered += unanswered.count
            figures.unansweredKept += unanswered.filter { stored[$0.0] != nil }.count
            figures.lost += lost.count
            print(
                "crash consistency, serve round \(round): \(plan), \(answered) answered 200, \(unanswered.count) unanswered "
                    + "(\(unanswered.filter { stored[$0.0] != nil }.count) of them stored), \(stored.count) devices")
        }
        #expect(
            acknowledged.count >= rounds && figures.unanswered > 0,
            "the kills landed while requests were answered and in flight")

        // A last server on the same file starts and accepts a registration: nothing left behind stops it.
        let server = try RunningServe(["--no-auth"], environment: environment)
        let last = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "after-the-crashes", "apns_token": "\#(Self.token(0x31, 0))"}"#)
        #expect(last.status == 200, "\(last.body)")
        server.terminate()
        #expect(try checkedRegistry(expected: nil).count >= acknowledged.count + 1)
        #expect(temporaryFiles().isEmpty, "\(temporaryFiles())")

        print(
            """
            crash consistency, register-apns serve: seed \(schedule.seed), \(rounds) servers SIGKILLed (\(figures.killedWriting) at \
            the write of a batch), \(figures.requests) registrations sent by \(clients) clients, \(acknowledged.count) answered 200, \
            \(figures.unanswered) unanswered (\(figures.unansweredKept) of them stored anyway), \(figures.lost) lost
            """)
    }

    // MARK: Helpers

    /// Registers `devices` in one `register-apns add --from-json` and returns them as id → token.
    func prefill(_ devices: [(String, String)]) throws -> [String: String] {
        let bodies = devices.map { #"{"device_token": "\#($0.0)", "apns_token": "\#($0.1)"}"# }
        try BuiltTool.run(
            "register-apns", ["add", "--from-json", "-"], environment: environment,
            stdin: Data(("[" + bodies.joined(separator: ",\n") + "]").utf8)
        ).expectSuccess()
        return Dictionary(uniqueKeysWithValues: devices)
    }

    /// The registry as id → token, after checking it the ways a crash could break it: the file parses
    /// as JSON (version 1), is 0600 in a 0700 directory, `register-apns list --json` reads the same
    /// devices, every token is 64 hex digits, and, when `expected` is given, every device is one
    /// that some writer tried to register, with its own token (no partial or mixed-up device).
    @discardableResult
    func checkedRegistry(
        expected: [String: String]?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: String] {
        // A writer killed before its first rename leaves no file: an empty registry, as the tools read it.
        guard FileManager.default.fileExists(atPath: stateFile) else {
            let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
            #expect(
                listed.status == 0 && listed.stdout.isEmpty, "no file lists no device: \(listed.stderr)",
                sourceLocation: sourceLocation)
            return [:]
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let object = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], "the state file parses",
            sourceLocation: sourceLocation)
        #expect(object["version"] as? Int == 1, sourceLocation: sourceLocation)
        let devices = try #require(object["devices"] as? [String: [String: Any]], sourceLocation: sourceLocation)
        var stored: [String: String] = [:]
        for (id, record) in devices { stored[id] = record["token"] as? String ?? "" }
        // These tests write the file whole (serve's journal is kept out: see `serveKilledInFlight`),
        // so the file alone is the registry.
        #expect(
            !FileManager.default.fileExists(atPath: stateFile + ".journal"), "no journal beside the file",
            sourceLocation: sourceLocation)

        let attributes = try FileManager.default.attributesOfItem(atPath: stateFile)
        #expect(
            (attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600, "the devices file stays 0600",
            sourceLocation: sourceLocation)
        let directory = try FileManager.default.attributesOfItem(atPath: setup.directory.file("state"))
        #expect((directory[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700, sourceLocation: sourceLocation)

        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
        #expect(listed.status == 0, "register-apns list --json: \(listed.stderr)", sourceLocation: sourceLocation)
        let lines = jsonLines(listed.stdout)
        #expect(
            lines.count == stored.count && lines.count == listed.stdout.split(separator: "\n").count,
            sourceLocation: sourceLocation)
        var fromList: [String: String] = [:]
        for line in lines { fromList[line["device_id"] as? String ?? ""] = line["token"] as? String ?? "" }
        #expect(fromList == stored, "register-apns list --json and the file agree", sourceLocation: sourceLocation)

        let malformed = stored.filter { $0.value.count != 64 || !$0.value.allSatisfy(\.isHexDigit) }
        #expect(malformed.isEmpty, "whole tokens only: \(malformed.prefix(3))", sourceLocation: sourceLocation)
        if let expected {
            let strangers = stored.filter { expected[$0.key] != $0.value }
            #expect(
                strangers.isEmpty, "only devices some writer registered, with their tokens: \(strangers.prefix(3))",
                sourceLocation: sourceLocation)
        }
        return stored
    }

    /// The temporary files beside the state file (`devices.json.tmp-*`).
    func temporaryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: setup.directory.file("state"))) ?? []).filter {
            $0.contains(".tmp-")
        }
    }

    /// An emulator answering 410 for `tokens`, timed now (after they were registered).
    func startEmulator(answering410 tokens: [String]) throws -> RunningEmulator {
        let list = try setup.directory.write("unregistered.txt", tokens.joined(separator: "\n") + "\n")
        return try RunningEmulator(["--quiet", "--unregistered-file", list], environment: setup.environment)
    }

    /// Kills `tool` as `plan` says: after a delay, or through `trigger` when it writes the registry.
    func apply(_ plan: KillPlan, to tool: RunningTool, trigger: TemporaryFileTrigger) throws {
        switch plan {
        case .never:
            break
        case .after(let delay):
            Thread.sleep(forTimeInterval: delay)
            if tool.process.isRunning { tool.kill() }
        case .onTemporaryFile(let count, let delay):
            trigger.arm(tool.process.processIdentifier, count: count, delay: delay)
        }
    }

    /// Python threads posting registrations to `server` over kept-alive connections until it goes
    /// away. Prints `200 ID TOKEN` for each acknowledged registration and `none ID TOKEN` for one
    /// sent but never answered; any other answer is printed with its status.
    static func pythonClient(server: RunningServe, round: Int, clients: Int) -> Process {
        let script = """
            import http.client, json, sys, threading
            port, round_, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
            lock = threading.Lock()
            def say(text):
                with lock:
                    sys.stdout.write(text + "\\n")
                    sys.stdout.flush()
            def client(number):
                connection = None
                for n in range(100000):
                    device = "serve-%d-%d-%d" % (round_, number, n)
                    token = "30%02x%02x" % (round_ % 256, number) + "c7" * 25 + "%08x" % n
                    body = json.dumps({"device_token": device, "apns_token": token})
                    try:
                        if connection is None:
                            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                            connection.connect()
                    except OSError:
                        return  # the server is gone
                    try:
                        connection.request("POST", "/register-apns", body, {"Content-Type": "application/json"})
                        response = connection.getresponse()
                        response.read()
                    except (OSError, http.client.HTTPException):
                        say("none %s %s" % (device, token))
                        connection.close()
                        connection = None
                        continue
                    say("%d %s %s" % (response.status, device, token))
                    if response.status != 200:
                        return
            threads = [threading.Thread(target=client, args=(n,)) for n in range(count)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(server.port), String(round), String(clients)]
        return process
    }
}

/// `register-apns add` processes run `concurrency` at a time, each killed as `plan` says, until
/// `count` have run (or, with no count, until `stop()`); records how each ended. Each writer waits
/// `pause` between its processes (the soak paces its background registrations so).
final class WriterStorm: Sendable {
    /// How one writer ended.
    struct Outcome: Sendable {
        let id: String
        let token: String
        let status: Int32
        let killed: Bool
        /// Killed by the trigger: while it wrote the registry.
        let killedWriting: Bool
        let duration: TimeInterval
        let stderr: String

        /// Exited 0: the registration was acknowledged.
        var acknowledged: Bool { !killed && status == 0 }
    }

    private let count: Int?
    private let environment: [String: String]
    private let trigger: TemporaryFileTrigger?
    private let plan: @Sendable (Int) -> KillPlan
    private let registration: @Sendable (Int) -> (String, String)
    private let state = Mutex<(next: Int, running: Bool, outcomes: [Outcome], errors: [String])>((0, true, [], []))
    private let group = DispatchGroup()

    init(
        count: Int?, concurrency: Int, environment: [String: String], trigger: TemporaryFileTrigger?,
        plan: @escaping @Sendable (Int) -> KillPlan, registration: @escaping @Sendable (Int) -> (String, String),
        pause: TimeInterval = 0
    ) {
        self.count = count
        self.environment = environment
        self.trigger = trigger
        self.plan = plan
        self.registration = registration
        for _ in 0..<concurrency {
            group.enter()
            Thread { [self] in
                defer { group.leave() }
                while let index = claim() {
                    runOne(index)
                    if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                }
            }.start()
        }
    }

    /// Runs `count` writers and returns their outcomes.
    static func run(
        count: Int, concurrency: Int, environment: [String: String], trigger: TemporaryFileTrigger?,
        plan: @escaping @Sendable (Int) -> KillPlan, registration: @escaping @Sendable (Int) -> (String, String)
    ) throws -> [Outcome] {
        let storm = WriterStorm(
            count: count, concurrency: concurrency, environment: environment, trigger: trigger, plan: plan,
            registration: registration)
        storm.group.wait()
        return try storm.results()
    }

    /// Lets the running writers finish, starts no more, and returns every outcome.
    func stop() throws -> [Outcome] {
        state.withLock { $0.running = false }
        group.wait()
        return try results()
    }

    private func results() throws -> [Outcome] {
        let (outcomes, errors) = state.withLock { ($0.outcomes, $0.errors) }
        if let error = errors.first { throw StormError(message: error) }
        return outcomes.sorted { $0.id < $1.id }
    }

    private func claim() -> Int? {
        state.withLock { state in
            guard state.running, count.map({ state.next < $0 }) ?? true else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    private func runOne(_ index: Int) {
        let (id, token) = registration(index)
        let started = Date()
        do {
            let writer = try BuiltTool.start("register-apns", ["add", id, token], environment: environment)
            let pid = writer.process.processIdentifier
            switch plan(index) {
            case .never:
                break
            case .after(let delay):
                Thread.sleep(forTimeInterval: delay)
                if writer.process.isRunning { writer.kill() }
            case .onTemporaryFile(let count, let delay):
                trigger?.arm(pid, count: count, delay: delay)
            }
            let result = try writer.wait()
            trigger?.disarm(pid)
            let outcome = Outcome(
                id: id, token: token, status: result.status, killed: writer.wasSignaled,
                killedWriting: writer.wasSignaled && trigger?.killed(pid) == true,
                duration: Date().timeIntervalSince(started), stderr: result.stderr)
            state.withLock { $0.outcomes.append(outcome) }
        } catch {
            state.withLock { $0.errors.append("\(id): \(error)") }
        }
    }

    struct StormError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
