import Foundation
import Synchronization
import Testing

/// Registration under random file-system faults: `register-apns serve` and command-line writers
/// on one state file, every open, rename, write and sync in its directory failing at random
/// (`Tests/Tools/fault_shim.c`'s PUSHKIT_FAULT_RANDOM: spurious ENOENT, EIO, ENOSPC). A write may
/// fail; one that said it kept a device (exit 0, HTTP 200) must have kept it. `make soak` runs it
/// with ten times the operations (PUSHKIT_SOAK_SCALE).
@Suite("fault injection: serve and command-line writers on one file, random I/O faults, no acknowledged loss")
struct FaultInjectionSoakTests {
    let directory: TemporaryDirectory
    let stateDirectory: String
    let stateFile: String

    init() throws {
        directory = try TemporaryDirectory()
        stateDirectory = directory.file("state")
        stateFile = stateDirectory + "/devices.json"
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// What one writer did: the ids it was told were kept or removed, and how many operations failed.
    struct Tally {
        var added: [String: String] = [:]
        var removed: Set<String> = []
        var operations = 0
        var failed = 0
    }

    @Test("random ENOENT, EIO and ENOSPC under serve's journal and command-line folds: every acknowledgement holds")
    func randomFaults() throws {
        let seed = KillSchedule().seed
        let operations = 40 * KillSchedule.scale
        let clean: [String: String] = [
            "HOME": directory.file("home"), "APNS_STATE_FILE": stateFile,
            "PUSHKIT_REGISTRY_JOURNAL_BYTES": "0", "PUSHKIT_REGISTRY_JOURNAL_IDLE_MS": "30",
        ]
        func faulty(_ stream: Int) -> [String: String] {
            FaultShim.environment(
                clean,
                [
                    "PUSHKIT_FAULT_RANDOM": stateDirectory + "/", "PUSHKIT_FAULT_PROBABILITY": "0.04",
                    "PUSHKIT_FAULT_SEED": String(seed &+ UInt64(stream)),
                    "PUSHKIT_FAULT_LOG": directory.file("faults.log"),
                ])
        }
        let seeded = (0..<20).map { "seeded-\($0)" }
        for (n, id) in seeded.enumerated() {
            try BuiltTool.run("register-apns", ["add", id, hexToken(n, filler: "6b")], environment: clean)
                .expectSuccess()
        }
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: faulty(1000))

        let tallies = Mutex([Tally](repeating: Tally(), count: 4))
        let removals = (0..<4).map { stream in seeded.filter { Int($0.dropFirst(7))! % 4 == stream } }
        let environments = (0..<4).map(faulty)
        let registerURL = server.baseURL + "/register-apns"
        DispatchQueue.concurrentPerform(iterations: 4) { stream in
            var tally = Tally()
            var toRemove = removals[stream]
            for n in 0..<operations {
                let id = "w\(stream)-\(n)"
                let token = hexToken(10_000 * (stream + 1) + n, filler: "6b")
                tally.operations += 1
                if stream < 2 {
                    // Command-line writers: an add, and now and then a remove of a seeded device.
                    if n % 10 == 9, let victim = toRemove.first {
                        let run = try? BuiltTool.run(
                            "register-apns", ["remove", victim], environment: environments[stream])
                        if run?.status == 0 {
                            tally.removed.insert(victim)
                            toRemove.removeFirst()
                        } else {
                            tally.failed += 1
                        }
                        continue
                    }
                    let run = try? BuiltTool.run(
                        "register-apns", ["add", id, token], environment: environments[stream])
                    if run?.status == 0 { tally.added[id] = token } else { tally.failed += 1 }
                } else {
                    let body = #"{"device_token": "\#(id)", "apns_token": "\#(token)"}"#
                    let answer = try? HTTPExchange.curl(
                        "POST", registerURL, body: Data(body.utf8), headers: ["Content-Type": "application/json"])
                    if answer?.status == 200 { tally.added[id] = token } else { tally.failed += 1 }
                }
            }
            tallies.withLock { $0[stream] = tally }
        }
        server.terminate()

        let all = tallies.withLock { $0 }
        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: clean)
        #expect(listed.status == 0, "the registry reads after the faults: \(listed.stderr)")
        let devices = try listedDevices(listed.stdout)
        var lost: [String] = []
        for tally in all {
            for (id, token) in tally.added where devices[id]?["token"] as? String != token { lost.append(id) }
        }
        let revived = all.flatMap(\.removed).filter { devices[$0] != nil }
        let faults = (try? String(contentsOfFile: directory.file("faults.log"), encoding: .utf8)) ?? ""
        let kinds = Dictionary(
            grouping: faults.split(separator: "\n"),
            by: { $0.split(separator: " ").dropFirst().prefix(3).joined(separator: " ") }
        )
        .mapValues(\.count).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let total = all.map(\.operations).reduce(0, +)
        let failed = all.map(\.failed).reduce(0, +)
        print(
            "fault injection, seed \(seed): \(total) operations, \(total - failed) acknowledged, \(failed) failed, "
                + "\(lost.count) lost, \(revived.count) removals undone; faults injected: \(kinds.joined(separator: ", "))"
        )
        #expect(lost.isEmpty, "seed \(seed): acknowledged but lost: \(lost.prefix(5))")
        #expect(revived.isEmpty, "seed \(seed): removal acknowledged but the device is back: \(revived.prefix(5))")
        #expect(failed > 0 && failed < total, "seed \(seed): the faults landed and writes still went through")
    }
}
