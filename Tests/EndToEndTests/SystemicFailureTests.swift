import Foundation
import Testing

/// A failure that is the same for every device (an untrusted certificate, a server that cannot be
/// reached, credentials APNs refuses) stops a fan-out early and is reported once, with its fix;
/// the devices not sent to are reported as not tried, and stay registered.
@Suite("a failure the same for every device: stop early, report once")
struct SystemicFailureTests {
    static let deviceCount = 400

    /// A state file of `count` production devices, written directly: `device-00000` with the token
    /// ending in 1, and so on.
    static func writeDevices(to path: String, count: Int = deviceCount) throws {
        var devices: [String: Any] = [:]
        for index in 0..<count {
            devices[String(format: "device-%05d", index)] = [
                "token": String(format: "%064x", index + 1), "environment": "production", "groups": [String](),
                "registered_at": "2026-01-01T00:00:00.000Z", "last_seen_at": "2026-01-01T00:00:00.000Z",
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "devices": devices])
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The two lines the stopped run prints instead of one a device, checked, and the not-tried count.
    static func expectReportedOnce(_ result: ToolResult, reason: String) -> Int {
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "one line for the failed devices, one for the rest:\n\(result.stdout)")
        #expect(lines.first?.hasPrefix("failed") == true && lines.first?.contains(reason) == true, "\(lines)")
        let notTried = lines.last.flatMap { line -> Int? in
            guard line.hasPrefix("not_tried") else { return nil }
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        #expect((notTried ?? 0) > 0, "\(lines)")
        #expect(result.stderr.contains("\(notTried ?? 0) not tried"), "\(result.stderr)")
        return notTried ?? 0
    }

    @Test("an untrusted certificate: exit 69, one line, the CA setting named once, the rest not tried")
    func untrustedCertificate() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_CA_FILE"] = nil
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        try Self.writeDevices(to: setup.directory.file("devices.json"))

        let sent = try BuiltTool.run("send-push", ["--body", "hi"], environment: environment)
        #expect(sent.status == 69, "\(sent.stderr)")
        _ = Self.expectReportedOnce(sent, reason: "SSL certificate problem")
        let advice = sent.stderr.components(separatedBy: "APNS_CA_FILE").count - 1
        #expect(advice == 1, "the fix is given once: \(sent.stderr)")
        #expect(emulator.records().isEmpty, "no request got through")

        // Machine-readable output still has one line a device, the untried ones saying so.
        let json = try BuiltTool.run("send-push", ["--body", "hi", "--json"], environment: environment)
        let outcomes = json.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["outcome"] as? String
        }
        #expect(outcomes.count == Self.deviceCount && outcomes.contains("not_tried"), "\(Set(outcomes))")
        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
        #expect(listed.stdout.components(separatedBy: "device-").count - 1 == Self.deviceCount, "none pruned")
    }

    @Test("a key id APNs refuses: exit 78, one line, the credentials named once, most devices never sent")
    func refusedCredentials() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        environment["APNS_KEY_ID"] = "ZZZZZ99999"
        try Self.writeDevices(to: setup.directory.file("devices.json"))

        let sent = try BuiltTool.run("send-push", ["--body", "hi"], environment: environment)
        #expect(sent.status == 78, "\(sent.stderr)")
        let notTried = Self.expectReportedOnce(sent, reason: "403 InvalidProviderToken")
        #expect(sent.stderr.contains("APNs refuses the provider token of key ZZZZZ99999"), "\(sent.stderr)")
        // Each device tried got its request and, after the token was replaced, one more.
        let tried = Set(emulator.records().compactMap { $0["device_token"] as? String }).count
        #expect(tried < Self.deviceCount && tried + notTried == Self.deviceCount, "\(tried) devices tried")
    }

    @Test("a server that refuses connections: exit 69, reported once")
    func unreachable() throws {
        let setup = try ProviderSetup()
        var environment = setup.environment
        environment["APNS_PRODUCTION_URL"] = "https://127.0.0.1:1"
        environment["APNS_STATE_FILE"] = setup.directory.file("devices.json")
        try Self.writeDevices(to: setup.directory.file("devices.json"))
        let sent = try BuiltTool.run("send-push", ["--body", "hi", "--retries", "0"], environment: environment)
        #expect(sent.status == 69, "\(sent.stderr)")
        _ = Self.expectReportedOnce(sent, reason: "127.0.0.1 port 1")
        #expect(sent.stderr.contains("APNs cannot be reached from here"))
    }
}
