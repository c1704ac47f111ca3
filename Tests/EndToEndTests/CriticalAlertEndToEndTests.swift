import Foundation
import Testing

/// Critical alerts end to end: the sound dictionary at the volume asked, from `send-push`, a send
/// body, MCP's urgency, ntfy's priority 5 and Bark's `level=critical`, and the refusal without
/// the config's `critical_alerts`, as the emulator (its stricter payload checks on) received them.
@Suite("critical alerts: the sound dictionary, and refused without the config's consent")
struct CriticalAlertEndToEndTests {
    let setup: ProviderSetup

    init() throws {
        setup = try ProviderSetup()
    }

    /// The clients' environment: the emulator as APNs, and a config allowing critical alerts or not.
    func environment(_ emulator: RunningEmulator, allowed: Bool) throws -> [String: String] {
        var env = setup.clients(of: emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write(
            allowed ? "allowing.json" : "refusing.json", #"{"critical_alerts": \#(allowed)}"#)
        return env
    }

    /// The `aps` of each payload the emulator received, in order.
    static func aps(_ emulator: RunningEmulator, count: Int) -> [[String: Any]] {
        emulator.waitForRecords(count).compactMap { ($0["payload"] as? [String: Any])?["aps"] as? [String: Any] }
    }

    /// Whether `aps` is a critical alert at `volume` with the sound `name`.
    static func isCritical(_ aps: [String: Any]?, volume: Double, name: String = "default") -> Bool {
        guard let aps, let sound = aps["sound"] as? [String: Any] else { return false }
        return aps["interruption-level"] as? String == "critical" && sound["critical"] as? Int == 1
            && sound["name"] as? String == name && (sound["volume"] as? NSNumber)?.doubleValue == volume
            && sound.count == 3
    }

    @Test("send-push --critical --volume: the sound dictionary; without critical_alerts exit 78, nothing sent")
    func sendPush() throws {
        let emulator = try RunningEmulator(["--quiet", "--strict-payload"], environment: setup.environment)
        let allowing = try environment(emulator, allowed: true)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: allowing).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--title", "Smoke alarm", "--body", "Kitchen", "--critical", "--volume", "0.3"],
            environment: allowing
        ).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--body", "Water leak", "--urgency", "critical", "--sound", "alarm.caf"],
            environment: allowing
        ).expectSuccess()
        let sent = Self.aps(emulator, count: 2)
        #expect(Self.isCritical(sent.first, volume: 0.3), "\(sent)")
        #expect(Self.isCritical(sent.last, volume: 1, name: "alarm.caf"), "\(sent)")

        let refusing = try environment(emulator, allowed: false)
        let refused = try BuiltTool.run("send-push", ["--body", "Smoke", "--critical"], environment: refusing)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains(#"set "critical_alerts": true"#), "\(refused.stderr)")
        let loud = try BuiltTool.run(
            "send-push", ["--body", "Smoke", "--critical", "--volume", "1.5"], environment: allowing)
        #expect(loud.status == 65 && loud.stderr.contains("--volume must be from 0 to 1"), "\(loud.stderr)")
        let clash = try BuiltTool.run(
            "send-push", ["--body", "Smoke", "--critical", "--urgency", "high"], environment: allowing)
        #expect(clash.status == 64 && clash.stderr.contains("--critical"), "\(clash.stderr)")
        #expect(emulator.records().count == 2, "nothing sent for a refused critical alert")

        // The doctor shows the setting and what it means.
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: allowing)
        let line = check.stdout.split(separator: "\n").first { $0.contains("critical alerts") } ?? ""
        #expect(line.contains("true") && line.contains("Critical Alerts entitlement"), "\(check.stdout)")
    }

    @Test("serve: urgency critical with a volume, ntfy priority 5 and Bark level=critical; 400 without consent")
    func serve() throws {
        let emulator = try RunningEmulator(["--quiet", "--strict-payload"], environment: setup.environment)
        let allowing = try environment(emulator, allowed: true)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: allowing).expectSuccess()
        do {
            let server = try RunningServe(["--no-auth"], environment: allowing)
            let body = try server.request(
                "POST", "/api/v1/notifications/send",
                json: #"{"title": "Smoke alarm", "urgency": "critical", "volume": 0.25}"#)
            #expect(body.status == 200, "\(body.body)")
            let ntfy = try server.request(
                "POST", "/phone", body: Data("flood sensor".utf8), headers: ["Priority": "urgent"])
            #expect(ntfy.status == 200, "\(ntfy.body)")
            let bark = try server.request("GET", "/phone/Smoke/Kitchen?level=critical&volume=7")
            #expect(bark.status == 200, "\(bark.body)")
            let sent = Self.aps(emulator, count: 3)
            #expect(Self.isCritical(sent[0], volume: 0.25), "\(sent)")
            #expect(Self.isCritical(sent[1], volume: 1), "\(sent)")
            #expect(Self.isCritical(sent[2], volume: 0.7), "\(sent)")
        }
        let server = try RunningServe(["--no-auth"], environment: try environment(emulator, allowed: false))
        let body = try server.request(
            "POST", "/api/v1/notifications/send", json: #"{"title": "Smoke alarm", "urgency": "critical"}"#)
        #expect(body.status == 400 && body.body.contains("critical_alerts"), "\(body.body)")
        let bark = try server.request("GET", "/phone/Smoke/Kitchen?level=critical")
        #expect(bark.status == 400 && bark.body.contains("critical_alerts"), "\(bark.body)")
        let ntfy = try server.request("POST", "/phone", body: Data("flood".utf8), headers: ["Priority": "5"])
        #expect(ntfy.status == 200, "priority 5 is time-sensitive without consent: \(ntfy.body)")
        let sent = Self.aps(emulator, count: 4)
        #expect(sent.count == 4 && sent[3]["interruption-level"] as? String == "time-sensitive", "\(sent)")
        #expect(sent[3]["sound"] as? String == "default", "\(sent)")
    }
}
