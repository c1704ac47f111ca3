import Foundation
import Testing

/// `register-apns serve` appends a large state file's batches to the journal beside it:
/// the command-line tools read through it and fold it, serve folds it when idle and when it stops,
/// and a server killed at any moment loses no registration it acknowledged. The tests lower the
/// threshold (`PUSHKIT_REGISTRY_JOURNAL_BYTES=0`) so a small file is journaled as a large one is.
@Suite("register-apns serve: the journal beside a large state file")
struct ServeJournalTests {
    let directory: TemporaryDirectory
    let stateFile: String

    init() throws {
        directory = try TemporaryDirectory()
        stateFile = directory.file("state/devices.json")
    }

    var journal: String { stateFile + ".journal" }
    var journalExists: Bool { FileManager.default.fileExists(atPath: journal) }

    func environment(idleMilliseconds: Int) -> [String: String] {
        [
            "HOME": directory.file("home"), "APNS_STATE_FILE": stateFile, "PUSHKIT_REGISTRY_JOURNAL_BYTES": "0",
            "PUSHKIT_REGISTRY_JOURNAL_IDLE_MS": String(idleMilliseconds),
        ]
    }

    func register(_ server: RunningServe, _ id: String, _ number: Int) throws {
        let answer = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "\#(id)", "apns_token": "\#(hexToken(number, filler: "4d"))"}"#)
        #expect(answer.status == 200, "\(answer.status): \(answer.body)")
    }

    /// The device ids `register-apns list --json` shows (the file with the journal applied).
    func listed(_ environment: [String: String]) throws -> Set<String> {
        let run = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        return Set(try listedDevices(run.stdout).keys).subtracting(seeded)
    }

    /// The device ids the state file itself holds, read as any JSON reader would, but the seeded ones.
    func inFile() throws -> Set<String> { Set(try stateFileDevices(stateFile).keys).subtracting(seeded) }

    /// The ids `seed(_:)` registers.
    let seeded = Set((0..<100).map { "seed-\($0)" })

    /// A file of 100 devices (30 KB), written by `register-apns import`: a journal is folded once it
    /// reaches the file's size, so the file must be large enough to take a few batches.
    func seed(_ environment: [String: String]) throws {
        let lines = (0..<100).map { #"{"device_id": "seed-\#($0)", "token": "\#(hexToken($0 + 100, filler: "5e"))"}"# }
        let input = directory.file("seed.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        try BuiltTool.run("register-apns", ["import", input], environment: environment).expectSuccess()
    }

    @Test("batches go to the journal; list, the routes and a command-line write see them; SIGTERM folds them in")
    func journalSeenAndFolded() throws {
        let environment = environment(idleMilliseconds: 600_000)
        try seed(environment)
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
        // The server gave the file a journal_base when it started: every batch goes to the journal.
        let prepared = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile)))
        #expect((prepared as? [String: Any])?["journal_base"] is String)
        try register(server, "first", 2)
        try register(server, "second", 3)
        try register(server, "third", 4)
        #expect(journalExists)
        #expect(try inFile().isEmpty, "the file is not rewritten per batch")
        #expect(try listed(environment) == ["first", "second", "third"])
        let routes = try server.request("GET", "/api/v1/devices")
        for id in ["seed-0", "first", "second", "third"] { #expect(routes.body.contains("\"\(id)\""), "\(id)") }

        // A command-line write folds the journal into the file, and serve carries on after it.
        try BuiltTool.run("register-apns", ["remove", "second"], environment: environment).expectSuccess()
        #expect(!journalExists)
        #expect(try inFile() == ["first", "third"])
        try register(server, "fourth", 5)
        #expect(journalExists)
        #expect(try listed(environment) == ["first", "third", "fourth"])

        #expect(server.terminate() == 0)
        #expect(!journalExists, "serve folds the journal when it stops")
        #expect(try inFile() == ["first", "third", "fourth"])
    }

    @Test("serve folds the journal into the file once idle, and goes on journaling after")
    func idleFold() throws {
        let environment = environment(idleMilliseconds: 300)
        try seed(environment)
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
        try register(server, "first", 2)
        try register(server, "second", 3)
        let deadline = Date().addingTimeInterval(10)
        while journalExists, Date() < deadline { usleep(20_000) }
        #expect(!journalExists, "folded within 10 s of the last batch")
        #expect(try inFile() == ["first", "second"])
        try register(server, "third", 4)
        #expect(try listed(environment) == ["first", "second", "third"])
        #expect(server.terminate() == 0)
        #expect(try inFile() == ["first", "second", "third"])
        #expect(!server.stderr.contains("not folded"), "\(server.stderr.suffix(400))")
    }

    @Test("serve SIGKILLed while it journals registrations in flight: every 200 is kept, and the next server starts")
    func killedWhileJournaling() throws {
        var schedule = KillSchedule()
        let environment = environment(idleMilliseconds: 1_000)
        try seed(environment)
        var acknowledged: [String: String] = [:]
        var unansweredCount = 0
        let rounds = 4 * KillSchedule.scale
        for round in 0..<rounds {
            let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
            let client = try RunningTool(
                CrashConsistencyTests.pythonClient(server: server, round: round, clients: 6), stdin: nil)
            let deadline = Date().addingTimeInterval(30)
            while !journalExists, Date() < deadline { usleep(1_000) }
            #expect(journalExists, "seed \(schedule.seed) round \(round): the server journals")
            Thread.sleep(forTimeInterval: 0.05 + schedule.fraction() * 0.4)
            #expect(server.process.isRunning, "\(server.stderr.suffix(400))")
            server.terminate(signal: SIGKILL)
            let answers = try client.wait()
            #expect(answers.status == 0, "the client: \(answers.stderr)")
            for line in answers.stdout.split(separator: "\n") {
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count == 3 else { continue }
                switch fields[0] {
                case "200": acknowledged[fields[1]] = fields[2]
                case "none": unansweredCount += 1
                default: Issue.record("seed \(schedule.seed) round \(round): answered \(line)")
                }
            }
            let run = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let stored = try listedDevices(run.stdout).mapValues { $0["token"] as? String ?? "" }
            let lost = acknowledged.filter { stored[$0.key] != $0.value }.map(\.key)
            #expect(lost.isEmpty, "seed \(schedule.seed) round \(round): answered 200 but lost: \(lost.prefix(5))")
        }
        #expect(acknowledged.count > rounds, "registrations were acknowledged before the kills")
        #expect(unansweredCount > 0, "the kills landed with requests in flight")

        let server = try RunningServe(["--no-auth"], environment: environment)
        try register(server, "after-the-crashes", 9)
        #expect(server.terminate() == 0)
        #expect(!journalExists)
        let file = try stateFileDevices(stateFile)
        let lost = acknowledged.filter { file[$0.key]?["token"] as? String != $0.value }.map(\.key)
        #expect(lost.isEmpty, "seed \(schedule.seed): the file after the last fold lacks \(lost.prefix(5))")
        #expect(file["after-the-crashes"] != nil && file["seed-99"] != nil)
        print(
            "serve journal crash test: seed \(schedule.seed), \(rounds) servers SIGKILLed while journaling, "
                + "\(acknowledged.count) registrations answered 200, \(unansweredCount) unanswered, none lost")
    }
}
