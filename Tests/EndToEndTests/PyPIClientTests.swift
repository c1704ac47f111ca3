import Foundation
import Testing

/// `apns-emulator` against a client library nobody here wrote: kalyke-apns from PyPI (installed by
/// `make deps`), used as shipped except for its base URL and TLS trust (Tests/Tools/pypi_kalyke_client.py).
/// It signs `iat` as a numeric string and opens a new connection with a freshly signed provider token
/// for every notification; APNs serves both, so the emulator must too.
@Suite("PyPI client libraries against apns-emulator")
struct PyPIClientTests {
    static let script = RepositoryFiles.path("Tests/Tools/pypi_kalyke_client.py")
    static let device = String(repeating: "5e", count: 32)

    func run(_ emulator: RunningEmulator, _ setup: ProviderSetup) throws -> [[String: Any]] {
        let result = try BuiltTool.runSystem(
            "python3",
            [
                Self.script, emulator.baseURL, emulator.caPath, setup.key.pkcs8Path,
                ProviderSetup.keyID, ProviderSetup.teamID, ProviderSetup.topic, Self.device,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        return jsonLines(result.stdout)
    }

    static let kinds = ["alert", "background", "liveactivity", "voip", "critical"]

    @Test("kalyke-apns: alert, background, Live Activity, VoIP and critical requests are served as APNs serves them")
    func kalyke() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let sent = try run(emulator, setup)
        #expect(sent.map { $0["kind"] as? String } == Self.kinds)
        #expect(sent.allSatisfy { $0["error"] == nil && ($0["apns_id"] as? String)?.count == 36 }, "\(sent)")

        let records = emulator.waitForRecords(5)
        #expect(
            records.map { $0["status"] as? Int } == [200, 200, 200, 200, 200], "\(records.map { $0["detail"] ?? "" })")
        #expect(records.map { $0["push_type"] as? String } == ["alert", "background", "liveactivity", "voip", "alert"])
        #expect(
            records.map { $0["topic"] as? String } == [
                ProviderSetup.topic, ProviderSetup.topic,
                ProviderSetup.topic + ".push-type.liveactivity", ProviderSetup.topic + ".voip", ProviderSetup.topic,
            ])
        #expect(Set(records.compactMap { $0["connection"] as? Int }).count == 5, "one connection per notification")
        let critical = try #require((records[4]["payload"] as? [String: Any])?["aps"] as? [String: Any])
        let sound = critical["sound"] as? [String: Any]
        #expect(
            sound?["critical"] as? Int == 1 && sound?["volume"] as? Double == 0.6
                && sound?["name"] as? String == "default")
        let details = records.map { $0["detail"] as? String ?? "" }
        #expect(details.allSatisfy { $0.contains("iat is the string") }, "\(details)")
        #expect(details.dropFirst().allSatisfy { $0.contains("on another connection") }, "\(details)")
        #expect(details[3].contains("no \"aps\" object"), "the VoIP payload has no aps: \(details[3])")
        let liveActivity = try #require((records[2]["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(
            liveActivity["event"] as? String == "update"
                && (liveActivity["content-state"] as? [String: Any])?["progress"] as? Double == 0.5)
    }

    @Test("kalyke-apns against the strict readings: --strict-iat refuses its tokens")
    func kalykeStrict() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet", "--strict-iat"], environment: setup.environment)
        let sent = try run(emulator, setup)
        #expect(
            sent.count == 5 && sent.allSatisfy { ($0["error"] as? String)?.contains("InvalidProviderToken") == true },
            "\(sent)")
        #expect(emulator.waitForRecords(5).allSatisfy { $0["reason"] as? String == "InvalidProviderToken" })
    }

    @Test("kalyke-apns against --strict-payload: its critical sound, background push and the rest keep the rules")
    func kalykeStrictPayload() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet", "--strict-payload"], environment: setup.environment)
        let sent = try run(emulator, setup)
        #expect(sent.map { $0["kind"] as? String } == Self.kinds)
        #expect(sent.allSatisfy { $0["error"] == nil }, "\(sent)")
        let records = emulator.waitForRecords(5)
        #expect(records.allSatisfy { $0["status"] as? Int == 200 }, "\(records.map { $0["detail"] ?? "" })")
    }
}
