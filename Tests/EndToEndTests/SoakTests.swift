import Foundation
import PushKitFreeCore
import PushKitFreeEmulator
import Testing

/// The fault soak: `send-push` to many registered devices (1,000 in `make soak`) through an `apns-emulator`
/// that answers each device its own story (`--script-file`: 500, 503 and 429 once or twice, 500 for
/// good, stalls, slow and too-slow answers, 410, a permanent 400) while the connection itself is
/// cut by GOAWAY or dropped, and other processes register devices during the run. Afterwards the
/// emulator's record, the JSON report and the devices file must agree:
///
/// - every device has exactly one reported outcome;
/// - no device got two 200 answers within the run, and `delivered` means exactly one 200;
/// - only devices answered 410 are pruned, and every pruned device was answered 410;
/// - no other device is lost, and every registration made during the run is kept;
/// - the run ends within `--timeout` plus one second, with the exit status its outcomes call for.
///
/// The default is three rounds (no connection faults, GOAWAY, drops) of 250 devices, each with a
/// fresh seed for which device gets which fault. `make soak` runs release builds through more
/// rounds of 1,000 (`PUSHKIT_SOAK_ROUNDS`, `PUSHKIT_SOAK_DEVICES`, `PUSHKIT_SOAK_TIMEOUT`), and
/// `PUSHKIT_SOAK_SEED` repeats a failing round.
@Suite("soak: devices through injected faults", .serialized)
struct SoakTests {
    /// What one device is scripted to meet.
    enum FaultClass: String, CaseIterable {
        case transient500, transient503, throttledTwice, persistent500, stall, slow, tooSlow, unregistered, rejected,
            healthy

        /// Devices of this class per 1,000.
        var share: Int {
            switch self {
            case .transient500, .transient503, .throttledTwice, .slow: 100
            case .persistent500, .stall, .tooSlow, .unregistered: 50
            case .rejected: 20
            case .healthy: 380
            }
        }

        /// The emulator's `--script-file` steps; `nil` for the classes scripted otherwise.
        var steps: String? {
            switch self {
            case .transient500: "500:InternalServerError,ok"
            case .transient503: "503:ServiceUnavailable,ok"
            case .throttledTwice: "429:TooManyRequests,429:TooManyRequests,ok"
            case .persistent500: "500:InternalServerError"
            case .stall: "stall"
            case .slow: "delay:1500"
            case .tooSlow: "delay:\((SoakTests.timeoutSeconds + 5) * 1000)"
            case .rejected: "400:DeviceTokenNotForTopic"
            case .unregistered, .healthy: nil
            }
        }

        /// The outcome, status and attempts when the connection itself holds (no GOAWAY, no drop) and the emulator keeps up.
        var expected: (outcome: String, status: Int, attempts: Int) {
            switch self {
            case .transient500, .transient503: ("delivered", 200, 2)
            case .throttledTwice: ("delivered", 200, 3)
            case .persistent500: ("failed", 500, 4)
            case .stall, .tooSlow: ("failed", 0, 1)
            case .slow, .healthy: ("delivered", 200, 1)
            case .unregistered: ("unregistered", 410, 1)
            case .rejected: ("rejected", 400, 1)
            }
        }

        /// The outcomes acceptable when connections are cut: a cut may cost a retry or the run's
        /// time, so anything retried may end `failed` (temporarily); nothing may end otherwise.
        var allowedWhenCut: Set<String> {
            switch self {
            case .persistent500, .stall, .tooSlow: ["failed"]
            case .unregistered: ["unregistered", "failed"]
            case .rejected: ["rejected", "failed"]
            default: ["delivered", "failed"]
            }
        }
    }

    /// A round's connection fault.
    enum ConnectionFault: String, CaseIterable {
        case none, goAway, drop

        /// Each connection is cut after 30 % (GOAWAY) or 40 % (reset) as many streams as there are
        /// devices, so a round loses several connections whatever its size.
        var emulatorArguments: [String] {
            switch self {
            case .none: []
            case .goAway: ["--goaway-after", String(max(1, SoakTests.deviceCount * 3 / 10))]
            case .drop: ["--drop-after", String(max(1, SoakTests.deviceCount * 4 / 10))]
            }
        }
    }

    static let environment = ProcessInfo.processInfo.environment
    /// `send-push --timeout`: every round lasts this long, since stalled devices are never answered.
    /// The default suits the debug-built emulator on a loaded 2-core machine, which manages only a
    /// few hundred requests a second once long-open streams make SwiftNIO's per-stream bookkeeping
    /// linear (debug builds of SwiftNIO also check their state on every frame); `make soak` runs
    /// release builds with 5 seconds.
    static let timeoutSeconds = Int(environment["PUSHKIT_SOAK_TIMEOUT"] ?? "") ?? 10
    /// How much longer than `--timeout` the whole process may take. 1 second, as the issue asks, for
    /// `make soak`'s release build; debug builds spend up to a second more in argument-parser alone
    /// on a loaded machine (parsing, validating, and building the help text for the exit), so the
    /// default leaves them 3. The run's own time (the summary's "in N s", from loading the key to
    /// the last registry write) is held to 1 second in both.
    static let wallClockSlack = Double(environment["PUSHKIT_SOAK_WALL_SLACK"] ?? "") ?? 3
    /// 1,000 with `make soak`; fewer by default, for the debug build `make test` uses.
    static let deviceCount = Int(environment["PUSHKIT_SOAK_DEVICES"] ?? "") ?? 250

    /// The rounds: each connection fault once, or `PUSHKIT_SOAK_ROUNDS` rounds cycling through them.
    static let rounds: [Int] = Array(0..<(Int(environment["PUSHKIT_SOAK_ROUNDS"] ?? "") ?? 3))

    @Test(
        "every device ends in one outcome; no duplicate, no prune but 410, nothing lost, within the timeout",
        arguments: rounds)
    func soakRound(round: Int) throws {
        let fault = ConnectionFault.allCases[round % ConnectionFault.allCases.count]
        let seed = UInt64(Self.environment["PUSHKIT_SOAK_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("soak round \(round): seed \(seed) (PUSHKIT_SOAK_SEED=\(seed) repeats this run)")
        let setup = try ProviderSetup()
        let devicesFile = setup.directory.file("devices.json")

        // Devices, shuffled into fault classes by the seed.
        var random = SplitMix64(seed: seed)
        var classes = FaultClass.allCases.flatMap { Array(repeating: $0, count: $0.share * Self.deviceCount / 1000) }
        classes += Array(repeating: .healthy, count: Self.deviceCount - classes.count)
        classes.shuffle(using: &random)
        let devices = classes.enumerated().map { index, faultClass in
            (
                id: String(format: "dev-%04d", index), token: Self.token(round: round, index: index),
                faultClass: faultClass
            )
        }
        let classOfDevice = Dictionary(uniqueKeysWithValues: devices.map { ($0.id, $0.faultClass) })

        let script = devices.compactMap { device in device.faultClass.steps.map { "\(device.token) \($0)" } }.joined(
            separator: "\n")
        let unregistered = devices.filter { $0.faultClass == .unregistered }.map(\.token).joined(separator: "\n")
        let emulator = try RunningEmulator(
            [
                "--quiet", "--record", setup.directory.file("records.jsonl"),
                "--script-file", try setup.directory.write("script.txt", script),
                "--unregistered-file", try setup.directory.write("unregistered.txt", unregistered),
            ] + fault.emulatorArguments, environment: setup.environment)
        var env = emulator.asAPNs(for: setup.environment)
        env["APNS_STATE_FILE"] = devicesFile

        let flat = "{" + devices.map { "\"\($0.id)\": \"\($0.token)\"" }.joined(separator: ", ") + "}"
        try BuiltTool.run("register-apns", ["import", try setup.directory.write("flat.json", flat)], environment: env)
            .expectSuccess()

        // Other processes register devices for as long as the run lasts.
        // Paced, so the writers leave the emulator most of the CPU.
        let registrations = WriterStorm(
            count: nil, concurrency: 2, environment: env, trigger: nil, plan: { _ in .never },
            registration: { number in
                (
                    "extra-\(round)-\(number)",
                    String(format: "ee%06x", round) + String(repeating: "d4", count: 24)
                        + String(format: "%08x", number)
                )
            }, pause: 0.05)
        let started = Date()
        let run = try BuiltTool.run(
            "send-push",
            ["--body", "soak round \(round)", "--json", "--full", "--timeout", String(Self.timeoutSeconds)],
            environment: env)
        let elapsed = Date().timeIntervalSince(started)
        let acknowledged = try registrations.stop().filter(\.acknowledged)

        let lines = jsonLines(run.stdout)
        let records = emulator.records()
        let deliveries = records.filter { $0["status"] as? Int == 200 }
            .reduce(into: [String: Int]()) { $0[$1["device_token"] as? String ?? "", default: 0] += 1 }
        let registry = try Self.registry(devicesFile)

        // Tallies for the report.
        var outcomes: [String: Int] = [:]
        var byClass: [FaultClass: [String: Int]] = [:]
        for line in lines {
            let outcome = line["outcome"] as? String ?? "?"
            outcomes[outcome, default: 0] += 1
            if let device = line["device"] as? String, let faultClass = classOfDevice[device] {
                byClass[faultClass, default: [:]][outcome, default: 0] += 1
            }
        }
        let statuses = records.reduce(into: [Int: Int]()) { $0[$1["status"] as? Int ?? 0, default: 0] += 1 }
        let connections = Set(records.map { $0["connection"] as? Int ?? 0 }).count
        let duplicates = deliveries.values.filter { $0 > 1 }.count
        let lost = acknowledged.filter { registry[$0.id] as? String != $0.token }
        print(
            """
            soak round \(round) (\(fault.rawValue), seed \(seed)): \(devices.count) devices, exit \(run.status), \
            \(String(format: "%.2f", elapsed)) s (run \(run.stderr.split(separator: "\n").last { $0.hasPrefix("send-push: ") }?.split(separator: " ").suffix(2).joined(separator: " ") ?? "?")); outcomes \(outcomes.sorted { $0.key < $1.key }); \
            answers \(statuses.sorted { $0.key < $1.key }) over \(connections) connections; \
            duplicates \(duplicates); registrations during the run \(acknowledged.count), lost \(lost.count)
            """)
        for faultClass in FaultClass.allCases {
            print("  \(faultClass.rawValue): \((byClass[faultClass] ?? [:]).sorted { $0.key < $1.key })")
        }

        // One outcome per device, no more, no less.
        // Devices registered between the writers' start and send-push reading the file may be sent
        // to as well; they are healthy devices.
        let reported = lines.compactMap { $0["device"] as? String }.filter { !$0.hasPrefix("extra-") }
        let extras = lines.filter { ($0["device"] as? String)?.hasPrefix("extra-") == true }
        let healthyOutcomes: Set<String> = fault == .none ? ["delivered"] : FaultClass.healthy.allowedWhenCut
        #expect(extras.allSatisfy { healthyOutcomes.contains($0["outcome"] as? String ?? "") }, "seed \(seed)")
        #expect(reported.count == devices.count, "seed \(seed)")
        #expect(Set(reported) == Set(devices.map(\.id)), "seed \(seed)")

        // No duplicate delivery; `delivered` means exactly one 200 for that token.
        #expect(
            duplicates == 0,
            "seed \(seed): tokens answered 200 twice: \(deliveries.filter { $0.value > 1 }.keys.sorted())")
        for line in lines {
            guard let device = line["device"] as? String, let token = line["token"] as? String,
                let faultClass = classOfDevice[device]
            else { continue }
            let outcome = line["outcome"] as? String
            // A request that timed out may have been delivered all the same (APNs had it): that is
            // the one case where an outcome other than `delivered` may come with a 200.
            let timedOut = outcome == "failed" && line["status"] as? Int == 0
            if outcome == "delivered" || !timedOut {
                #expect(
                    (outcome == "delivered") == (deliveries[token] == 1),
                    "seed \(seed): \(device) (\(faultClass)) reported \(outcome ?? "-") with \(deliveries[token] ?? 0) 200s"
                )
            }
            if fault == .none {
                let expected = faultClass.expected
                #expect(outcome == expected.outcome, "seed \(seed): \(device) (\(faultClass))")
                #expect(line["status"] as? Int == expected.status, "seed \(seed): \(device) (\(faultClass))")
                #expect(line["attempts"] as? Int == expected.attempts, "seed \(seed): \(device) (\(faultClass))")
            } else {
                #expect(
                    faultClass.allowedWhenCut.contains(outcome ?? ""),
                    "seed \(seed): \(device) (\(faultClass)) ended \(outcome ?? "-")")
                if outcome == "failed" {
                    let status = line["status"] as? Int ?? -1
                    #expect(
                        status == 0 || status == 429 || status >= 500,
                        "seed \(seed): \(device) failed with \(status), not a temporary failure")
                }
            }
            // Pruned exactly when answered 410.
            #expect((line["pruned"] as? Bool == true) == (outcome == "unregistered"), "seed \(seed): \(device)")
            #expect(
                (registry[device] == nil) == (outcome == "unregistered"),
                "seed \(seed): \(device) (\(faultClass)) \(registry[device] == nil ? "removed" : "kept") after \(outcome ?? "-")"
            )
            if outcome == "unregistered" {
                #expect(faultClass == .unregistered, "seed \(seed): \(device) pruned without a 410")
            }
        }

        // Registrations made during the run are all there.
        #expect(acknowledged.count >= 2, "the writers ran during the send")
        #expect(lost.isEmpty, "seed \(seed): registrations lost: \(lost.map(\.id))")

        // Within the time limit, with the exit status the outcomes call for.
        let summary = run.stderr.split(separator: "\n").last { $0.hasPrefix("send-push: ") && $0.hasSuffix(" s") }
        let runSeconds = summary.flatMap { Double($0.split(separator: " ").dropLast().last ?? "") }
        #expect(runSeconds != nil, "seed \(seed): no summary line in \(run.stderr.suffix(300))")
        #expect(
            (runSeconds ?? .infinity) <= Double(Self.timeoutSeconds) + 1,
            "seed \(seed): the run took \(runSeconds ?? -1) s with --timeout \(Self.timeoutSeconds)")
        #expect(
            elapsed <= Double(Self.timeoutSeconds) + Self.wallClockSlack,
            "seed \(seed): the process took \(elapsed) s with --timeout \(Self.timeoutSeconds)")
        let permanent = lines.contains { line in
            let outcome = line["outcome"] as? String, status = line["status"] as? Int ?? 0
            return outcome == "rejected" || (outcome == "failed" && status != 0 && status != 429 && status < 500)
        }
        let failed = lines.contains { $0["outcome"] as? String == "failed" }
        #expect(
            run.status == (permanent ? 1 : failed ? 75 : 0),
            "seed \(seed): exit \(run.status); stderr: \(run.stderr.suffix(300))")
    }

    static func token(round: Int, index: Int) -> String {
        String(format: "5a%06x", round) + String(repeating: "c3", count: 24) + String(format: "%08x", index)
    }

    static func registry(_ path: String) throws -> [String: Any] {
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let devices = try #require(object?["devices"] as? [String: [String: Any]])
        return devices.mapValues { $0["token"] ?? NSNull() }
    }
}
