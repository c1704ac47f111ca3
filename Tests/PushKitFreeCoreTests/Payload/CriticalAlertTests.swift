import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

/// Critical alerts (`--critical`, `--urgency critical`, `urgency: critical`): the critical sound
/// dictionary at the volume asked, refused unless the config says the app has the entitlement.
@Suite("critical alerts: the sound dictionary and the config's consent")
struct CriticalAlertTests {
    let probe = SpecificationProbe.alert(title: "Smoke alarm", body: "Kitchen")

    func built(_ configure: (inout PushSpecification) -> Void) throws -> JSONValue { try probe.payload(configure) }

    func refusal(_ configure: (inout PushSpecification) -> Void) -> String { probe.refusal(configure) }

    @Test("the level critical sends the sound dictionary: critical 1, the sound's name, the volume (1 by default)")
    func soundDictionary() throws {
        let loud = try built { $0.content.interruptionLevel = .critical }
        #expect(loud["aps"]?["interruption-level"] == "critical")
        #expect(loud["aps"]?["sound"] == ["critical": 1, "name": "default", "volume": 1])
        let quiet = try built {
            $0.content.interruptionLevel = .critical
            $0.volume = 0.25
            $0.sound = "alarm.caf"
        }
        #expect(quiet["aps"]?["sound"] == ["critical": 1, "name": "alarm.caf", "volume": 0.25])
        #expect(try built { $0.volume = nil }["aps"]?["sound"] == "default", "an ordinary alert keeps its string")
    }

    @Test("a volume outside 0 to 1, a volume without critical, a silent or alert-less critical push are refused")
    func refusals() {
        for volume in [-0.1, 1.01, 5, .nan, .infinity] {
            #expect(
                refusal {
                    $0.content.interruptionLevel = .critical
                    $0.volume = volume
                }.contains("--volume must be from 0 to 1"), "\(volume)")
        }
        #expect(refusal { $0.volume = 0.5 }.contains("--volume is a critical alert's volume"))
        #expect(
            refusal {
                $0.content.interruptionLevel = .critical
                $0.sound = "none"
            }.contains("cannot be sent with --sound none"))
        #expect(
            refusal {
                $0.content = NotificationContent()
                $0.content.interruptionLevel = .critical
                $0.content.badge = 1
            }.contains("a critical alert needs an alert"))
    }

    @Test("encrypted, a critical alert keeps its level and critical sound in clear; the text is sealed")
    func encrypted() throws {
        var spec = PushSpecification()
        spec.content.title = "Smoke alarm"
        spec.content.interruptionLevel = .critical
        spec.volume = 0.5
        spec.encrypt = true
        let request = try spec.build(bundleID: "com.example.app").request
        let clear = try JSONValue.parse(request.payload)
        #expect(clear["aps"]?["interruption-level"] == "critical")
        #expect(clear["aps"]?["sound"] == ["critical": 1, "name": "default", "volume": 0.5])
        #expect(!String(decoding: request.payload, as: UTF8.self).contains("Smoke"))
        #expect(request.sealedContent != nil)
    }

    @Test("a complete payload is a critical alert when its aps says so, by level or by sound")
    func completePayload() {
        func critical(_ json: String) -> Bool {
            var spec = PushSpecification()
            spec.payloadFile = Data(json.utf8)
            return spec.isCriticalAlert
        }
        #expect(critical(#"{"aps": {"alert": "x", "interruption-level": "critical"}}"#))
        #expect(critical(#"{"aps": {"alert": "x", "sound": {"critical": 1, "name": "default"}}}"#))
        #expect(!critical(#"{"aps": {"alert": "x", "sound": {"critical": 0, "name": "default"}}}"#))
        #expect(!critical(#"{"aps": {"alert": "x", "sound": "default"}}"#))
        #expect(!critical(#"not json"#))
    }

    @Test("urgency critical is the level critical; the config's critical_alerts must be true or false")
    func urgencyAndConfig() throws {
        #expect(Urgency.critical.interruptionLevel == .critical)
        func policy(_ json: String) throws -> NotificationPolicy {
            try NotificationPolicy(
                file: ConfigurationFile(path: "/etc/test-config.json", contents: Data(json.utf8)), quietPolicy: nil,
                minimumInterval: nil,
                makeZone: { _ throws(ConfigurationError) in FixedOffsetTimeZone(name: "UTC", offsetMinutes: 0) })
        }
        #expect(try policy("{}").criticalAlerts == false)
        #expect(try policy(#"{"critical_alerts": true}"#).criticalAlerts == true)
        #expect(throws: ConfigurationError.self) { try policy(#"{"critical_alerts": "yes"}"#) }
        var spec = PushSpecification()
        spec.content.title = "x"
        _ = try policy(#"{"urgency_categories": {"critical": "ALARM"}}"#).apply(
            to: &spec, urgency: .critical, groups: [], topic: nil, inQuietHours: true)
        #expect(spec.content.interruptionLevel == .critical && spec.content.category == "ALARM")
        #expect(spec.sound == nil, "quiet hours leave a critical alert's sound alone")
    }

    @Test("prepare refuses a critical alert unless critical_alerts is on, with exit 78 and the reason")
    func consent() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var flags = ConfigurationFlags()
        flags.topic = "com.example.app"
        flags.configPath = directory + "/config.json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/config.json"))
        let configuration = try Configuration.resolve(
            flags: flags, environment: ["HOME": directory, "PUSHKIT_STATE_DIR": directory])
        var spec = PushSpecification()
        spec.content.body = "Water leak"
        spec.volume = 0.6
        var allowing = NotificationPolicy()
        allowing.criticalAlerts = true
        let prepared = try PushSender.prepare(
            spec, configuration: configuration, notificationPolicy: allowing, urgency: .critical)
        let payload = try JSONValue.parse(prepared.request.payload)
        #expect(payload["aps"]?["sound"] == ["critical": 1, "name": "default", "volume": 0.6])
        #expect(prepared.overridesCap)
        do {
            _ = try PushSender.prepare(
                spec, configuration: configuration, notificationPolicy: NotificationPolicy(), urgency: .critical)
            Issue.record("a critical alert was prepared without critical_alerts")
        } catch let error as PayloadError {
            #expect(error.exitStatus == .configuration)
            #expect(error.description.contains(#"set "critical_alerts": true"#))
            #expect(error.description.contains("Critical Alerts entitlement"))
        }
        spec.volume = nil
        let ordinary = try PushSender.prepare(
            spec, configuration: configuration, notificationPolicy: NotificationPolicy(), urgency: .high)
        #expect(!ordinary.overridesCap)
    }
}
