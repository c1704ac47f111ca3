import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore

/// A clock fixed at one instant.
struct FixedClock: WallClock {
    let date: Date
    func now() -> Date { date }
}

@Suite("apns-jwt check (the doctor)")
struct ConfigurationDoctorTests {
    func configuration(_ env: [String: String]) throws -> Configuration {
        try Configuration(
            flags: ConfigurationFlags(), environment: ["HOME": "/nonexistent"].merging(env) { _, new in new },
            file: ConfigurationFile(path: "/nonexistent/config.json", exists: false, values: [:]))
    }

    func finding(_ setting: String, _ findings: [DoctorFinding]) -> DoctorFinding? {
        findings.first { $0.setting == setting }
    }

    @Test(
        "a clock before 2026 or after 2100 is reported as obviously wrong",
        arguments: [1_577_836_800.0, 4_200_000_000.0])
    func wrongClock(seconds: Double) throws {
        let findings = ConfigurationDoctor(
            configuration: try configuration([:]), clock: FixedClock(date: Date(timeIntervalSince1970: seconds))
        ).findings()
        let clock = try #require(finding("clock", findings))
        #expect(clock.severity == .error)
        #expect(clock.message.contains("obviously wrong"))
    }

    @Test("a plausible clock is fine; missing key, ids and topic are each named with what to set")
    func missingSettings() throws {
        let findings = ConfigurationDoctor(
            configuration: try configuration([:]), clock: FixedClock(date: Date(timeIntervalSince1970: 1_795_000_000))
        ).findings()
        #expect(finding("clock", findings)?.severity == .ok)
        #expect(finding("key file", findings)?.message.contains("set --key-path, APNS_KEY_PATH or key_path") == true)
        #expect(finding("key id", findings)?.message == "no key id: set --key-id, APNS_KEY_ID or key_id")
        #expect(finding("team id", findings)?.severity == .error)
        #expect(finding("topic", findings)?.message.contains("no topic") == true)
        #expect(DoctorReport.render(findings).hasSuffix("4 problems to fix\n"))
    }

    @Test("each setting reports where it came from")
    func sources() throws {
        let findings = ConfigurationDoctor(
            configuration: try configuration(["APNS_TOPIC": "com.example.app", "APNS_SANDBOX": "true"]),
            clock: FixedClock(date: Date(timeIntervalSince1970: 1_795_000_000))
        ).findings()
        #expect(finding("topic", findings)?.source == "env")
        #expect(finding("environment", findings)?.value == "sandbox")
        #expect(finding("apns url", findings)?.value == "https://api.sandbox.push.apple.com")
        #expect(finding("apns url", findings)?.source == "default")
        #expect(finding("manage url", findings)?.value == "https://api-manage-broadcast.sandbox.push.apple.com:2195")
        #expect(finding("manage url", findings)?.source == "default")
        let overridden = ConfigurationDoctor(
            configuration: try configuration(["APNS_TOPIC": "t", "APNS_PRODUCTION_MANAGE_URL": "https://127.0.0.1:9"]),
            clock: FixedClock(date: Date(timeIntervalSince1970: 1_795_000_000))
        ).findings()
        #expect(finding("manage url", overridden)?.value == "https://127.0.0.1:9")
        #expect(finding("manage url", overridden)?.source == "env")
    }
}
