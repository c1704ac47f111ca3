import Crypto
import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry

/// 2026-11-23 00:00:00 UTC, a Monday.
private let midnightUTC = Date(timeIntervalSince1970: 1_795_392_000)

/// `midnightUTC` plus `hours:minutes`.
private func at(_ hours: Int, _ minutes: Int = 0) -> Date {
    midnightUTC.addingTimeInterval(Double(hours * 3600 + minutes * 60))
}

private func configFile(_ json: String) throws -> ConfigurationFile {
    try ConfigurationFile(path: "/etc/test-config.json", contents: Data(json.utf8))
}

/// Berlin in winter: one hour ahead of UTC.
private let berlinWinter = FixedOffsetTimeZone(name: "Europe/Berlin", offsetMinutes: 60)

private func policy(
    _ json: String, quietPolicy: QuietPolicy? = nil, minimumInterval: Int? = nil,
    zone: any LocalTimeZone = berlinWinter
) throws -> NotificationPolicy {
    try NotificationPolicy(
        file: configFile(json), quietPolicy: quietPolicy, minimumInterval: minimumInterval,
        makeZone: { _ throws(ConfigurationError) in zone })
}

private func alert(_ body: String = "Reply ready") -> PushSpecification {
    var spec = PushSpecification()
    spec.content.title = "Sven"
    spec.content.body = body
    return spec
}

private let quietConfig = #"{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "Europe/Berlin"}}"#

@Suite("quiet hours")
struct QuietHoursTests {
    @Test("HH:MM parses to minutes after midnight; anything else is refused")
    func parsesTimes() {
        #expect(QuietHours.minuteOfDay("22:00") == 1320)
        #expect(QuietHours.minuteOfDay("7:05") == 425)
        #expect(QuietHours.minuteOfDay("00:00") == 0)
        #expect(QuietHours.minuteOfDay("23:59") == 1439)
        for bad in ["24:00", "12:60", "7", "07:5", "ab:cd", "-1:00", "07:00:00", "", "٠٧:٠٠"] {
            #expect(QuietHours.minuteOfDay(bad) == nil, "\(bad)")
        }
    }

    @Test("a window over midnight holds from start (inclusive) to end (exclusive), in its zone")
    func overMidnight() {
        let hours = QuietHours(start: 22 * 60, end: 7 * 60, zone: berlinWinter)
        #expect(!hours.contains(at(20, 59)), "21:59 in Berlin")
        #expect(hours.contains(at(21)), "22:00 in Berlin")
        #expect(hours.contains(at(23, 30)), "00:30 in Berlin")
        #expect(hours.contains(at(5, 59)), "06:59 in Berlin")
        #expect(!hours.contains(at(6)), "07:00 in Berlin")
        #expect(!hours.contains(at(12)))
        #expect(hours.description == "22:00-07:00 Europe/Berlin")
    }

    @Test("a window within one day")
    func withinDay() {
        let hours = QuietHours(start: 13 * 60, end: 14 * 60 + 30, zone: FixedOffsetTimeZone(offsetMinutes: 0))
        #expect(!hours.contains(at(12, 59)))
        #expect(hours.contains(at(13)))
        #expect(hours.contains(at(14, 29)))
        #expect(!hours.contains(at(14, 30)))
    }

    @Test("a negative offset wraps to the previous local day")
    func negativeOffset() {
        let newYork = FixedOffsetTimeZone(name: "America/New_York", offsetMinutes: -300)
        #expect(newYork.minuteOfDay(at: at(2)) == 21 * 60, "02:00 UTC is 21:00 the evening before")
        #expect(QuietHours(start: 20 * 60, end: 23 * 60, zone: newYork).contains(at(2)))
    }

    @Test(
        "each mistake in the config names the member at fault",
        arguments: [
            (#"{"quiet_hours": "22-7"}"#, "quiet_hours in /etc/test-config.json must be an object"),
            (#"{"quiet_hours": {"end": "07:00"}}"#, "quiet_hours.start in /etc/test-config.json must be a time"),
            (
                #"{"quiet_hours": {"start": "22:00", "end": "7pm"}}"#,
                "quiet_hours.end in /etc/test-config.json must be HH:MM"
            ),
            (#"{"quiet_hours": {"start": "22:00", "end": "22:00"}}"#, "starts and ends at the same time"),
            (
                #"{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": 1}}"#,
                "quiet_hours.timezone in /etc/test-config.json must be a string"
            ),
            (#"{"quiet_hours": {"start": "22:00", "end": "07:00", "tz": "UTC"}}"#, "unknown member \"tz\""),
            (
                #"{"quiet_hours": {"start": "22:00", "end": "07:00", "device_timezone": "yes"}}"#,
                "quiet_hours.device_timezone in /etc/test-config.json must be true or false"
            ),
            (#"{"quiet_policy": "mute"}"#, "quiet_policy in /etc/test-config.json must be"),
            (#"{"min_interval_seconds": -5}"#, "min_interval_seconds in /etc/test-config.json must be a whole number"),
            (#"{"min_interval_seconds": 1.5}"#, "min_interval_seconds in /etc/test-config.json must be a whole number"),
            (#"{"urgency_categories": {"urgent": "X"}}"#, "the urgencies are low, normal, high or critical"),
            (
                #"{"urgency_categories": {"high": ""}}"#,
                "urgency_categories.high in /etc/test-config.json must be a category name"
            ),
            (#"{"log_max_bytes": 10}"#, "log_max_bytes in /etc/test-config.json must be"),
        ])
    func configErrors(json: String, message: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try policy(json) }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
        #expect(error?.exitStatus == .configuration)
    }

    @Test("a zone name that is not in the tz database is refused; a real one is accepted")
    func zoneNames() throws {
        #expect(throws: ConfigurationError.self) { try SystemTimeZone(identifier: "Mars/Olympus_Mons") }
        #expect(throws: ConfigurationError.self) { try SystemTimeZone(identifier: "../../etc/passwd") }
        #expect(throws: ConfigurationError.self) { try SystemTimeZone(identifier: "/usr/share/zoneinfo/UTC") }
        #expect(try SystemTimeZone(identifier: "Europe/Berlin").name == "Europe/Berlin")
        #expect(try SystemTimeZone(identifier: nil).name == "system")
    }

    @Test("device_timezone keeps the window in each device's zone; the configured zone is the fallback")
    func deviceZone() throws {
        let hours = try #require(
            try policy(
                #"{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "UTC", "device_timezone": true}}"#
            )
            .quietHours)
        #expect(hours.inDeviceZone)
        #expect(hours.description.hasPrefix("22:00-07:00 in the device's zone (else "))
        let noon = Date(timeIntervalSince1970: 12 * 3600) // 12:00 UTC, 21:00 in Tokyo, 22:00 one hour east of it
        #expect(!hours.contains(noon))
        #expect(!hours.contains(noon, in: FixedOffsetTimeZone(offsetMinutes: 9 * 60)))
        #expect(hours.contains(noon, in: FixedOffsetTimeZone(offsetMinutes: 10 * 60)))
        #expect(try policy(#"{"quiet_hours": {"start": "22:00", "end": "07:00"}}"#).quietHours?.inDeviceZone == false)
    }

    @Test("flags override the file, and a bad flag value is a usage error")
    func flagsOverride() throws {
        let fromFile = try policy(#"{"quiet_policy": "skip", "min_interval_seconds": 60}"#)
        #expect(fromFile.quietPolicy == .skip)
        #expect(fromFile.minimumInterval == 60)
        #expect(fromFile.capsFrequency)
        let overridden = try policy(
            #"{"quiet_policy": "skip", "min_interval_seconds": 60}"#, quietPolicy: .ignore, minimumInterval: 0)
        #expect(overridden.quietPolicy == .ignore)
        #expect(!overridden.capsFrequency)
        let error = #expect(throws: ConfigurationError.self) { try policy("{}", minimumInterval: -1) }
        #expect(error?.exitStatus == .usage)
    }
}

@Suite("delivery policy")
struct NotificationPolicyTests {
    @Test("passive (the default): during quiet hours an alert goes out passive and without sound")
    func passiveDuringQuietHours() throws {
        let policy = try policy(quietConfig)
        var spec = alert()
        let decision = policy.apply(to: &spec, urgency: nil, groups: [], topic: "com.example.app", at: at(23))
        #expect(decision == .send(note: "quiet hours 22:00-07:00 Europe/Berlin: sent passive, without sound"))
        let payload = try JSONValue.parse(try spec.build(bundleID: "com.example.app").request.payload)
        #expect(payload["aps"]?["interruption-level"] == "passive")
        #expect(payload["aps"]?["sound"] == nil)

        var daytime = alert()
        #expect(policy.apply(to: &daytime, urgency: nil, groups: [], topic: nil, at: at(10)) == .send(note: nil))
        let daytimePayload = try JSONValue.parse(try daytime.build(bundleID: "com.example.app").request.payload)
        #expect(daytimePayload["aps"]?["sound"] == "default")
        #expect(daytimePayload["aps"]?["interruption-level"] == nil)
    }

    @Test("skip holds the alert back and says why; ignore sends it unchanged")
    func skipAndIgnore() throws {
        var spec = alert()
        #expect(
            try policy(quietConfig, quietPolicy: .skip).apply(
                to: &spec, urgency: nil, groups: [], topic: nil, at: at(23))
                == .skip(reason: "quiet hours 22:00-07:00 Europe/Berlin"))
        var ignored = alert()
        #expect(
            try policy(quietConfig, quietPolicy: .ignore).apply(
                to: &ignored, urgency: nil, groups: [], topic: nil, at: at(23))
                == .send(note: nil))
        #expect(ignored.content.interruptionLevel == nil)
        #expect(ignored.sound == nil)
    }

    @Test(
        "time-sensitive and critical alerts are never held back, whatever the policy",
        arguments: [InterruptionLevel.timeSensitive, .critical])
    func urgentAlertsPass(level: InterruptionLevel) throws {
        for quietPolicy in [QuietPolicy.passive, .skip] {
            var spec = alert()
            spec.content.interruptionLevel = level
            #expect(
                try policy(quietConfig, quietPolicy: quietPolicy).apply(
                    to: &spec, urgency: nil, groups: [], topic: nil, at: at(23)) == .send(note: nil))
            #expect(spec.content.interruptionLevel == level)
            #expect(spec.sound == nil)
        }
        var highUrgency = alert()
        #expect(
            try policy(quietConfig, quietPolicy: .skip).apply(
                to: &highUrgency, urgency: .high, groups: [], topic: nil, at: at(23)) == .send(note: nil))
        #expect(highUrgency.content.interruptionLevel == .timeSensitive)
    }

    @Test("a complete payload is never rewritten: quiet hours can only skip it, and its own level counts")
    func completePayloads() throws {
        var spec = PushSpecification()
        spec.payloadFile = Data(#"{"aps":{"alert":"hi","sound":"default"}}"#.utf8)
        #expect(
            try policy(quietConfig).apply(to: &spec, urgency: nil, groups: [], topic: nil, at: at(23))
                == .send(note: nil))
        #expect(spec.sound == nil && spec.content.interruptionLevel == nil)
        #expect(
            try policy(quietConfig, quietPolicy: .skip).apply(
                to: &spec, urgency: nil, groups: [], topic: nil, at: at(23))
                == .skip(reason: "quiet hours 22:00-07:00 Europe/Berlin"))
        spec.payloadFile = Data(#"{"aps":{"alert":"hi","interruption-level":"critical"}}"#.utf8)
        #expect(
            try policy(quietConfig, quietPolicy: .skip).apply(
                to: &spec, urgency: nil, groups: [], topic: nil, at: at(23)) == .send(note: nil))
    }

    @Test("background pushes are not alerts: quiet hours leave them alone")
    func backgroundUntouched() throws {
        var spec = PushSpecification()
        spec.pushType = .background
        #expect(
            try policy(quietConfig, quietPolicy: .skip).apply(
                to: &spec, urgency: nil, groups: [], topic: nil, at: at(23)) == .send(note: nil))
    }

    @Test(
        "urgency maps to the interruption level and, through the config's map, to a category",
        arguments: [
            (Urgency.low, InterruptionLevel.passive, "FYI" as String?), (.normal, .active, nil),
            (.high, .timeSensitive, "URGENT"),
        ])
    func urgency(urgency: Urgency, level: InterruptionLevel, category: String?) throws {
        let policy = try policy(#"{"urgency_categories": {"high": "URGENT", "low": "FYI"}}"#)
        var spec = alert()
        _ = policy.apply(to: &spec, urgency: urgency, groups: [], topic: nil, at: at(12))
        #expect(spec.content.interruptionLevel == level)
        #expect(spec.content.category == category)
        var named = alert()
        named.content.category = "REPLY"
        _ = policy.apply(to: &named, urgency: urgency, groups: [], topic: nil, at: at(12))
        #expect(named.content.category == "REPLY", "a category given on the command line wins")
    }

    @Test("--collapse-id auto is the hex SHA-256 of the thread id, else the groups, else the topic")
    func automaticCollapseID() throws {
        let policy = try policy("{}")
        func derived(threadID: String?, groups: [String], topic: String?) -> String? {
            var spec = alert()
            spec.collapseID = "auto"
            spec.content.threadID = threadID
            _ = policy.apply(to: &spec, urgency: nil, groups: groups, topic: topic, at: at(12))
            return spec.collapseID
        }
        func sha256(_ text: String) -> String {
            SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        let fromThread = derived(threadID: "chat-42", groups: ["family"], topic: "com.example.app")
        #expect(fromThread == sha256("thread:chat-42"))
        #expect(fromThread?.count == 64)
        #expect(
            derived(threadID: "chat-42", groups: [], topic: nil) == fromThread,
            "stable: the same thread gives the same id")
        #expect(derived(threadID: "chat-43", groups: [], topic: nil) != fromThread)
        #expect(derived(threadID: nil, groups: ["b", "a"], topic: "t") == sha256("groups:a,b"))
        #expect(derived(threadID: nil, groups: [], topic: "com.example.app") == sha256("topic:com.example.app"))
        var explicit = alert()
        explicit.collapseID = "mine"
        _ = policy.apply(to: &explicit, urgency: nil, groups: [], topic: nil, at: at(12))
        #expect(explicit.collapseID == "mine")
    }

    @Test("the frequency cap counts per collapse id, else per audience")
    func capKeys() {
        #expect(NotificationPolicy.capKey(collapseID: "c1", groups: ["g"], deviceIDs: [], tokens: []) == "collapse:c1")
        #expect(
            NotificationPolicy.capKey(collapseID: nil, groups: ["b", "a"], deviceIDs: [], tokens: []) == "groups:a,b")
        #expect(
            NotificationPolicy.capKey(collapseID: nil, groups: [], deviceIDs: ["ipad"], tokens: []) == "devices:ipad")
        #expect(
            NotificationPolicy.capKey(collapseID: nil, groups: [], deviceIDs: [], tokens: ["AB", "cd"])
                == NotificationPolicy.capKey(collapseID: nil, groups: [], deviceIDs: [], tokens: ["cd", "ab"]))
        #expect(NotificationPolicy.capKey(collapseID: nil, groups: [], deviceIDs: [], tokens: []) == "all")
    }
}

@Suite("frequency cap")
struct FrequencyCapTests {
    @Test("a second send within the interval is refused with its age; after the interval it passes again")
    func interval() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock(midnightUTC)
        let cap = FrequencyCap(path: directory + "/state/frequency-cap.json", interval: 60, clock: clock)
        #expect(try cap.admit(key: "collapse:a") == .admitted)
        clock.advance(by: 59)
        #expect(try cap.admit(key: "collapse:a") == .tooSoon(secondsAgo: 59))
        #expect(try cap.admit(key: "collapse:b") == .admitted, "another key has its own interval")
        clock.advance(by: 1)
        #expect(try cap.admit(key: "collapse:a") == .admitted)
        clock.advance(by: 10)
        #expect(try cap.admit(key: "collapse:a") == .tooSoon(secondsAgo: 10), "the admitted send was recorded")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/state/frequency-cap.json")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory + "/state")
        #expect((directoryAttributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test("a corrupt state file does not silence notifications: it counts as empty and is rewritten")
    func corruptFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/frequency-cap.json"
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        let cap = FrequencyCap(path: path, interval: 60, clock: ManualClock(midnightUTC))
        #expect(try cap.admit(key: "all") == .admitted)
        #expect(try cap.admit(key: "all") == .tooSoon(secondsAgo: 0))
    }

    @Test("entries older than a week are dropped; a clock that went back does not lock a key out")
    func expiry() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/frequency-cap.json"
        let clock = ManualClock(midnightUTC)
        let cap = FrequencyCap(path: path, interval: 3600, clock: clock)
        #expect(try cap.admit(key: "old") == .admitted)
        clock.advance(by: 8 * 24 * 3600)
        #expect(try cap.admit(key: "new") == .admitted)
        #expect(FrequencyCap.read(path).keys.sorted() == ["new"])
        clock.advance(by: -600)
        #expect(try cap.admit(key: "new") == .admitted, "a send recorded in the future is not a reason to wait")
    }
}

@Suite("delivery report lines")
struct DeliveryReportLineTests {
    @Test("a cleared push-to-start token is not reported as a device removed from the registry")
    func pushToStartPruneLine() throws {
        let token = try DeviceToken(validating: String(repeating: "ef", count: 32))
        var started = DeliveryResult(
            target: DeliveryTarget(
                deviceID: "ipad", token: token, recordedEnvironment: .production, tokenKind: .pushToStart),
            environment: .production)
        started.outcome = .unregistered
        started.status = 410
        started.reason = "Unregistered"
        started.pruned = true
        var device = started
        device = DeliveryResult(
            target: DeliveryTarget(deviceID: "phone", token: token, recordedEnvironment: .production),
            environment: .production)
        device.outcome = .unregistered
        device.pruned = true
        let lines = DeliveryReport(results: [started, device], seconds: 0).lines(fullTokens: false).split(
            separator: "\n")
        #expect(lines[0].hasSuffix("(push-to-start token removed; device kept)"))
        #expect(lines[1].hasSuffix("(removed from registry)"))
    }
}
