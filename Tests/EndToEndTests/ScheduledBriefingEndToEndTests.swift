import Foundation
import Testing

/// `send-push --due briefing` run the way cron runs it, quiet hours kept in each device's own zone,
/// and `register-apns briefing`/`add --timezone`: the built tools against the real emulator, with
/// the clock injected by `--now`.
@Suite("Per-device briefing times and time zones, end to end")
struct ScheduledBriefingEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String
    let stateDirectory: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
        stateDirectory = setup.directory.file("state")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile, "PUSHKIT_STATE_DIR": stateDirectory] }

    /// A UTC instant as `--now` takes it.
    private func instant(_ day: Int, _ hour: Int, _ minute: Int = 0) -> String {
        String(format: "2030-03-%02dT%02d:%02d:00Z", day, hour, minute)
    }

    /// One device of a version 1 state file, as the gateway leaves it.
    private func device(
        _ id: String, _ token: String, zone: String?,
        briefing: (time: String, zone: String, enabled: Bool, lastSent: String)?
    ) -> String {
        var members = [#""token":"\#(token)""#, #""environment":"production""#]
        if let zone { members.append(#""timezone":"\#(zone)""#) }
        if let briefing {
            members.append(
                #""briefing":{"enabled":\#(briefing.enabled),"time":"\#(briefing.time)","timezone":"\#(briefing.zone)","#
                    + #""sources":["weather"],"last_sent_on":"\#(briefing.lastSent)"}"#)
        }
        return #""\#(id)":{\#(members.joined(separator: ","))}"#
    }

    private func stateFile(_ devices: [String]) -> String {
        #"{"version":1,"devices":{\#(devices.joined(separator: ","))}}"#
    }

    @Test("cron every ten minutes over a simulated day in three zones: each device's briefing once, at its own time")
    func dueBriefingOverASimulatedDay() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let berlin = hexToken(1), newYork = hexToken(2), tokyo = hexToken(3), none = hexToken(4), off = hexToken(5)
        // Set up the day before; Tokyo, already past its 07:05 on the 10th, had the 10th's.
        _ = try setup.directory.write(
            "devices.json",
            stateFile([
                device(
                    "berlin", berlin, zone: "Europe/Berlin", briefing: ("07:00", "Europe/Berlin", true, "2030-03-09")),
                // 2030-03-10 is the day New York springs forward: 07:00 EDT is 11:00 UTC, not 12:00.
                device(
                    "new-york", newYork, zone: nil, briefing: ("07:00", "America/New_York", true, "2030-03-09")),
                device("tokyo", tokyo, zone: "Asia/Tokyo", briefing: ("07:05", "Asia/Tokyo", true, "2030-03-10")),
                device("no-briefing", none, zone: "Europe/Berlin", briefing: nil),
                device("off", off, zone: nil, briefing: ("07:00", "Europe/Berlin", false, "2030-03-09")),
            ]))

        var deliveredAt: [String: [String]] = [:]
        for step in 0..<(24 * 6) {
            let (hour, minute) = (step / 6, step % 6 * 10)
            // The runs at 06:00 and 06:10 UTC are skipped (the machine was asleep): Berlin's 07:00
            // briefing comes late, with the next run.
            if hour == 6 && minute < 20 { continue }
            let now = instant(10, hour, minute)
            let run = try BuiltTool.run(
                "send-push",
                ["--due", "briefing", "--now", now, "--title", "Morning briefing", "--body", "Sunny", "--json"],
                environment: env)
            #expect(run.status == 0, "\(now): \(run.stderr)")
            for line in jsonLines(run.stdout) where line["outcome"] as? String == "delivered" {
                deliveredAt[line["device"] as? String ?? "?", default: []].append(now)
            }
            if jsonLines(run.stdout).isEmpty {
                #expect(run.stderr.isEmpty, "a run with nothing due says nothing (cron would mail it): \(run.stderr)")
            }
        }
        #expect(
            deliveredAt == [
                "berlin": [instant(10, 6, 20)], "new-york": [instant(10, 11)], "tokyo": [instant(10, 22, 10)],
            ])
        let byToken = emulator.records().filter { $0["status"] as? Int == 200 }
            .reduce(into: [String: Int]()) { counts, record in
                counts[record["device_token"] as? String ?? "", default: 0] += 1
            }
        #expect(byToken == [berlin: 1, newYork: 1, tokyo: 1], "APNs saw each briefing once")

        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: env)
        listed.expectSuccess()
        let lastSent = Dictionary(
            uniqueKeysWithValues: jsonLines(listed.stdout).map {
                ($0["device_id"] as? String ?? "", ($0["briefing"] as? [String: Any])?["last_sent_on"] as? String)
            })
        #expect(lastSent["berlin"] == "2030-03-10" && lastSent["new-york"] == "2030-03-10")
        #expect(lastSent["tokyo"] == "2030-03-11", "Tokyo's 07:05 on the 11th is 22:05 UTC on the 10th")
        #expect(lastSent["off"] == "2030-03-09" && lastSent["no-briefing"] == .some(nil))

        // A second run in the same minute, or a what-if dry run, sends nothing more.
        let again = try BuiltTool.run(
            "send-push", ["--due", "briefing", "--now", instant(10, 22, 10), "--body", "Sunny"], environment: env)
        #expect(again.status == 0 && again.stdout.isEmpty)
        let whatIf = try BuiltTool.run(
            "send-push", ["--due", "briefing", "--now", instant(11, 6, 30), "--body", "Sunny", "--dry-run"],
            environment: env)
        whatIf.expectSuccess()
        #expect(whatIf.stdout.contains("berlin") && !whatIf.stdout.contains("new-york"), "\(whatIf.stdout)")
        #expect(emulator.records().count == 3)
    }

    @Test("--due refuses what it cannot mean: --token, --live-activity, --hook; an unknown schedule names the choices")
    func dueRefusals() throws {
        let env = clientEnvironment(nil)
        for extra in [["--token", hexToken(9)], ["--live-activity", "end"], ["--hook"]] {
            let run = try BuiltTool.run("send-push", ["--due", "briefing", "--body", "x"] + extra, environment: env)
            #expect(
                run.status == 64 && run.stderr.contains("--due selects registered devices"), "\(extra): \(run.stderr)")
        }
        let unknown = try BuiltTool.run("send-push", ["--due", "lunch", "--body", "x"], environment: env)
        #expect(unknown.status == 64 && unknown.stderr.contains("briefing"), "\(unknown.stderr)")
        let badTime = try BuiltTool.run(
            "send-push", ["--due", "briefing", "--now", "tomorrow", "--body", "x"], environment: env)
        #expect(badTime.status == 64 && badTime.stderr.contains("--now"), "\(badTime.stderr)")
        #expect(!FileManager.default.fileExists(atPath: devicesFile))
    }

    @Test("quiet hours in each device's zone: a phone whose night it is gets the alert passive and silent, or skipped")
    func quietHoursInTheDevicesZone() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write(
            "config.json",
            #"{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "UTC", "device_timezone": true}}"#)
        try register("tokyo", hexToken(11), ["--timezone", "Asia/Tokyo"], env: env)
        try register("new-york", hexToken(12), ["--timezone", "America/New_York"], env: env)
        try register("unknown-zone", hexToken(13), env: env)
        // 14:00 UTC: 23:00 in Tokyo (quiet), 10:00 in New York and 14:00 UTC (not quiet).
        let now = instant(10, 14)
        let passive = try BuiltTool.run("send-push", ["--body", "Done", "--now", now, "--json"], environment: env)
        passive.expectSuccess()
        let payloads = Dictionary(
            uniqueKeysWithValues: emulator.waitForRecords(3).map {
                (
                    $0["device_token"] as? String ?? "",
                    ($0["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
                )
            })
        #expect(payloads[hexToken(11)]?["interruption-level"] as? String == "passive")
        #expect(payloads[hexToken(11)]?["sound"] == nil)
        for token in [hexToken(12), hexToken(13)] {
            #expect(payloads[token]?["interruption-level"] == nil && payloads[token]?["sound"] as? String == "default")
        }

        let skip = try BuiltTool.run(
            "send-push", ["--body", "Done", "--now", now, "--quiet-policy", "skip", "--json"], environment: env)
        skip.expectSuccess()
        let outcomes = Dictionary(
            uniqueKeysWithValues: jsonLines(skip.stdout).map {
                ($0["device"] as? String ?? "", $0["outcome"] as? String ?? "")
            })
        #expect(
            outcomes == ["tokyo": "skipped", "new-york": "delivered", "unknown-zone": "delivered"], "\(skip.stdout)")
        #expect(emulator.waitForRecords(5).count == 5, "the skipped device was not sent to")

        // Without device_timezone the configured zone (UTC, 14:00) decides for everyone.
        env["PUSHKIT_CONFIG"] = try setup.directory.write(
            "config.json", #"{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "UTC"}}"#)
        let configured = try BuiltTool.run(
            "send-push", ["--body", "Done", "--now", now, "--quiet-policy", "skip", "--json"], environment: env)
        configured.expectSuccess()
        #expect(
            jsonLines(configured.stdout).allSatisfy { $0["outcome"] as? String == "delivered" }, "\(configured.stdout)")
    }

    @Test("register-apns briefing sets, shows and turns off a device's briefing; bad input changes nothing")
    func briefingCommand() throws {
        let env = clientEnvironment(nil)
        try register("phone", hexToken(21), ["--timezone", "Europe/Berlin"], env: env)
        let set = try BuiltTool.run(
            "register-apns",
            ["briefing", "phone", "--time", "07:30", "--timezone", "America/New_York", "--source", "weather"],
            environment: env)
        set.expectSuccess()
        #expect(set.stdout.contains("briefing at 07:30 America/New_York, sources weather"), "\(set.stdout)")
        let before = try String(contentsOfFile: devicesFile, encoding: .utf8)
        #expect(before.contains(#""timezone":"Europe/Berlin""#))

        for (arguments, expected) in [
            (["briefing", "phone", "--time", "25:00"], "--time must be a local time of day"),
            (["briefing", "phone", "--timezone", "Mars/Base"], "\"Mars/Base\" is not an IANA time zone"),
            (["briefing", "tablet", "--time", "07:00", "--timezone", "UTC"], "tablet"),
            (["add", "tablet", hexToken(22), "--timezone", "Nowhere/Town"], "--timezone \"Nowhere/Town\""),
        ] {
            let run = try BuiltTool.run("register-apns", arguments, environment: env)
            #expect(run.status == 65 && run.stderr.contains(expected), "\(arguments): \(run.stderr)")
            #expect(try String(contentsOfFile: devicesFile, encoding: .utf8) == before, "\(arguments) changed nothing")
        }

        let offRun = try BuiltTool.run("register-apns", ["briefing", "phone", "--off"], environment: env)
        offRun.expectSuccess()
        let shown = try BuiltTool.run("register-apns", ["briefing", "phone"], environment: env)
        shown.expectSuccess()
        #expect(shown.stdout.contains("briefing off (was at 07:30 America/New_York)"), "\(shown.stdout)")
    }
}
