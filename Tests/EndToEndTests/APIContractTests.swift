import Foundation
import Testing

/// docs/openapi.yaml is the exact contract of `register-apns serve`. schemathesis (from PyPI,
/// installed by `make deps`; run by Tests/Tools/api_contract.py) generates requests from the
/// document for every operation, valid and invalid, and runs all its checks on every answer of the
/// real server, which sends through the real `apns-emulator`: statuses, content types, headers and
/// bodies as documented, valid data accepted, invalid data refused, authentication enforced, 405
/// with a truthful `Allow` for the methods a path lacks. Any finding fails the test, with
/// schemathesis's report (and a curl line for each finding) in the message.
///
/// Reproducible and bounded: a fixed seed and a number of examples per operation and phase.
/// `make contract` runs the same with more examples (PUSHKIT_CONTRACT_EXAMPLES, PUSHKIT_CONTRACT_SEED).
@Suite("register-apns serve against docs/openapi.yaml (schemathesis)")
struct APIContractTests {
    static let root = RepositoryFiles.root
    static let environment = ProcessInfo.processInfo.environment
    static let seed = environment["PUSHKIT_CONTRACT_SEED"] ?? "16"
    static let examples = environment["PUSHKIT_CONTRACT_EXAMPLES"] ?? "25"
    /// The whole run's bound, a guard against a hang, not a speed check: alone a run takes about a
    /// minute, but one beside the rest of the suite once took over 300 s (seed 16, 2026-11-29), so
    /// the bound leaves room for a loaded machine.
    static let timeout = environment["PUSHKIT_CONTRACT_TIMEOUT"] ?? "600"

    @Test("every operation, all checks: no disagreement, with the secret and without", arguments: [true, false])
    func contract(withSecret: Bool) throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("state/devices.json")
        // The emulator plays FCM too: an FCM device the tester registers can be sent to, as on a
        // server with a Firebase account (without one, a send to it alone is 503 by design).
        environment["FCM_URL"] = emulator.baseURL
        environment["FCM_SERVICE_ACCOUNT"] = EmulatorFCMTests.accountPath(emulator)
        // Critical alerts allowed, as the document describes them accepted (400 only without it).
        environment["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"critical_alerts": true}"#)
        let secret = try setup.directory.write("serve.secret", "s3cret-for-the-contract\n", mode: 0o600)
        // The rate limit off: a 429 is documented, but it would stop the tester from reaching the routes.
        let server = try RunningServe(["--secret-file", secret, "--rate-limit", "0"], environment: environment)

        var arguments = [
            Self.root + "/Tests/Tools/api_contract.py", "--url", server.baseURL, "--seed", Self.seed,
            "--max-examples", Self.examples, "--timeout", Self.timeout,
        ]
        if withSecret { arguments += ["--secret-file", secret] }
        arguments.append(Self.root + "/docs/openapi.yaml")
        let started = Date()
        let run = try BuiltTool.runSystem("python3", arguments)
        let seconds = Date().timeIntervalSince(started)
        let report = run.stdout + run.stderr
        let serverOutput = String(server.stderr.suffix(3000))
        #expect(
            run.status == 0,
            "schemathesis found disagreements (seed \(Self.seed)) after \(Int(seconds)) s:\n\(report)\nserve said: \(serverOutput)"
        )
        #expect(report.contains("No issues found"), "\(report)")

        // Every operation of the document was tested, none skipped for lack of a way to reach it.
        let selected = try #require(report.firstMatch(of: /Selected: (\d+)\/(\d+)/), "\(report)")
        let tested = try #require(report.firstMatch(of: /Tested: (\d+)/), "\(report)")
        #expect(selected.1 == selected.2 && tested.1 == selected.2 && Int(tested.1) ?? 0 >= 12, "\(report)")
        #expect(server.process.isRunning, "the server survived: \(server.stderr.suffix(2000))")
        if withSecret {
            // The send routes reached APNs: the emulator was sent notifications.
            #expect(!emulator.records().isEmpty, "no notification reached the emulator")
        }
        print(
            "api_contract \(withSecret ? "with" : "without") the secret: \(String(format: "%.1f", seconds)) s, "
                + "seed \(Self.seed), \(Self.examples) examples per operation and phase")
    }
}
