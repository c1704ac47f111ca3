import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore

/// `key-scope.json`: what APNs said about a key's scope, noted by sends, reported by `apns-jwt check`.
@Suite("key-scope notes")
struct KeyScopeNotesTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scope-\(UUID().uuidString)").path
    let date = Date(timeIntervalSince1970: 1_795_000_000)

    func result(
        _ status: Int, _ reason: String?, outcome: DeliveryResult.Outcome, _ environment: APNsEnvironment
    )
        -> DeliveryResult
    {
        var result = DeliveryResult(
            target: DeliveryTarget(
                deviceID: "d", token: try! DeviceToken(validating: String(repeating: "ab", count: 32)),
                recordedEnvironment: nil),
            environment: environment)
        result.status = status
        result.reason = reason
        result.outcome = outcome
        return result
    }

    @Test("a send with no key-scope answer writes nothing")
    func nothingToNote() throws {
        let notes = KeyScopeNotes(stateDirectory: directory)
        try notes.record([result(200, nil, outcome: .delivered, .production)], keyID: "K", topic: "t", at: date)
        #expect(!FileManager.default.fileExists(atPath: notes.path))
    }

    @Test("refusals are noted per key, and a later delivery there clears them")
    func noteAndClear() throws {
        let notes = KeyScopeNotes(stateDirectory: directory)
        try notes.record(
            [
                result(403, "BadEnvironmentKeyIdInToken", outcome: .rejected, .production),
                result(400, "TopicDisallowed", outcome: .rejected, .sandbox),
            ], keyID: "K", topic: "com.example.app", at: date)
        #expect(
            notes.refusals(of: "K").map(\.scope) == [.environment(.production), .topic("com.example.app")]
                || notes.refusals(of: "K").map(\.scope) == [.topic("com.example.app"), .environment(.production)])
        #expect(notes.refusals(of: "other").isEmpty)
        #expect(PosixFile.permissions(of: notes.path) == 0o600)
        try notes.record(
            [result(200, nil, outcome: .delivered, .production)], keyID: "K", topic: "com.example.app", at: date)
        #expect(notes.refusals(of: "K").isEmpty)
    }

    func doctor(environment: String) throws -> [DoctorFinding] {
        let configuration = try Configuration(
            flags: ConfigurationFlags(),
            environment: [
                "HOME": "/nonexistent", "PUSHKIT_STATE_DIR": directory, "APNS_KEY_ID": "ABCDE12345",
                "APNS_TOPIC": "com.example.app", "APNS_ENVIRONMENT": environment,
            ],
            file: ConfigurationFile(path: "/nonexistent/config.json", exists: false, values: [:]))
        return ConfigurationDoctor(configuration: configuration, clock: FixedClock(date: date)).findings()
            .filter { $0.setting == "key scope" }
    }

    @Test("apns-jwt check: a key refused in the configured environment or for the topic fails, naming the way out")
    func doctorAdvice() throws {
        #expect(try doctor(environment: "production").isEmpty, "nothing noted, nothing said")
        try KeyScopeNotes(stateDirectory: directory).record(
            [
                result(403, "BadEnvironmentKeyIdInToken", outcome: .rejected, .production),
                result(400, "TopicDisallowed", outcome: .rejected, .production),
            ], keyID: "ABCDE12345", topic: "com.example.app", at: date)
        let production = try doctor(environment: "production")
        #expect(production.count == 2 && production.allSatisfy { $0.severity == .error && $0.source == "apns" })
        let environment = try #require(production.first { $0.message.contains("BadEnvironmentKeyIdInToken") })
        #expect(environment.message.contains("the key is limited to sandbox; use a key for production"))
        #expect(environment.message.contains("(--environment sandbox)"))
        #expect(production.contains { $0.message.hasPrefix("APNs answered TopicDisallowed for com.example.app") })
        let sandbox = try doctor(environment: "sandbox").first { $0.message.contains("BadEnvironmentKeyIdInToken") }
        #expect(sandbox?.severity == .warning)
        #expect(sandbox?.message.hasSuffix("devices registered for production need another key") == true)
    }
}
