import Crypto
import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

/// A transport source that hands out one scripted transport and logs when it is asked.
final class ScriptedTransportSource: HTTP2TransportSource, @unchecked Sendable {
    let transport: ScriptedTransport
    private(set) var events: [String] = []

    init(_ transport: ScriptedTransport = ScriptedTransport([:])) {
        self.transport = transport
    }

    func note(_ event: String) { events.append(event) }
    func prepare() throws { events.append("prepare") }
    func transport(caFile: String?, proxy: String?, connectTimeout: Duration) -> any HTTP2Transport {
        events.append("transport")
        return transport
    }
}

/// The one send pipeline: what each step does, in which order, and where a front end can stop it.
@Suite("PushSender: the one send pipeline")
struct PushSenderTests {
    /// A state directory with a key (unless `key` is false), two registered devices and a config.
    private func setUp(key: Bool = true, config: String = "{}") throws -> (Configuration, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sender-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyPath = directory + "/AuthKey.p8"
        if key {
            try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
            chmod(keyPath, 0o600)
        }
        try config.write(toFile: directory + "/config.json", atomically: true, encoding: .utf8)
        var flags = ConfigurationFlags()
        flags.configPath = directory + "/config.json"
        flags.keyPath = keyPath
        flags.keyID = "KEY0000001"
        flags.teamID = "TEAM000001"
        flags.topic = "com.example.app"
        flags.stateFile = directory + "/devices.json"
        let configuration = try Configuration.resolve(
            flags: flags, environment: ["HOME": directory, "PUSHKIT_STATE_DIR": directory])
        _ = try StateFileRegistry(path: configuration.stateFile.value).register([
            registration("phone", 1), registration("ipad", 2),
        ])
        return (configuration, directory)
    }

    private func sender(
        _ configuration: Configuration, _ source: ScriptedTransportSource,
        policy: NotificationPolicy = NotificationPolicy()
    ) -> PushSender {
        PushSender(
            configuration: configuration, notificationPolicy: policy, deliveryPolicy: DeliveryPolicy(retries: 0),
            transports: source, devices: configuration.registry())
    }

    private func alert(collapseID: String? = nil) -> PushSpecification {
        var spec = PushSpecification()
        spec.content.body = "hi"
        spec.collapseID = collapseID
        return spec
    }

    @Test("prepare counts the frequency cap under the collapse id, else the audience")
    func capKeys() throws {
        let (configuration, _) = try setUp()
        let sender = sender(configuration, ScriptedTransportSource())
        #expect(
            try sender.prepare(alert(collapseID: "job"), audience: .init(deviceIDs: ["phone"])).capKey == "collapse:job"
        )
        #expect(try sender.prepare(alert(), audience: .init(deviceIDs: ["phone"])).capKey == "devices:phone")
        #expect(try sender.prepare(alert(), audience: .init(groups: ["b", "a"])).capKey == "groups:a,b")
        #expect(try sender.prepare(alert()).capKey == "all")
    }

    @Test("a send goes select, check (credentials), deliver (transport); 410 prunes the device")
    func wholeSend() throws {
        let (configuration, _) = try setUp()
        let gone = token(2).text
        let unregistered = HTTP2Answer(
            status: 410, headers: ["apns-id": "x"], body: Data(#"{"reason":"Unregistered"}"#))
        let source = ScriptedTransportSource(ScriptedTransport([gone: [.success(unregistered)]]))
        let sender = sender(configuration, source)
        let prepared = try sender.prepare(alert())
        let targets = try sender.select(prepared, warn: { _ in })
        source.note("selected \(targets.count)")
        guard case .ready(let checked) = try sender.check(prepared, targets: targets, warn: { _ in }) else {
            Issue.record("held back")
            return
        }
        source.note("ready")
        let report = try sender.deliver(checked, warn: { _ in })
        #expect(source.events == ["selected 2", "ready", "prepare", "transport"])
        #expect(report.delivered == 1 && report.pruned == 1)
        #expect(try StateFileRegistry(path: configuration.stateFile.value).load().devices.map(\.id) == ["phone"])
    }

    @Test("an encrypted send seals each body for its device and refuses the device without a key, sending it nothing")
    func encryptedSendRefusesKeylessDevice() throws {
        let (configuration, _) = try setUp()
        let key = ContentKey.random()
        #expect(
            try StateFileRegistry(path: configuration.stateFile.value).setContentKey(
                key, deviceID: "phone", replacing: false)
                == .stored)
        let transport = ScriptedTransport([:])
        let sender = sender(configuration, ScriptedTransportSource(transport))
        var spec = alert()
        spec.content.body = "the launch code"
        spec.encrypt = true
        let prepared = try sender.prepare(spec)
        let targets = try sender.select(prepared, warn: { _ in })
        #expect(targets.map(\.deviceID) == ["ipad", "phone"])
        guard case .ready(let checked) = try sender.check(prepared, targets: targets, warn: { _ in }) else {
            Issue.record("held back")
            return
        }
        var finished: [(Int, DeliveryResult.Outcome)] = []
        let report = try sender.deliver(checked, onFinished: { finished.append(($0, $1.outcome)) }, warn: { _ in })
        #expect(report.results.map(\.outcome) == [.refused, .delivered])
        #expect(report.results[0].reason == ContentKeyError.missing && report.results[0].attempts == 0)
        #expect(finished.map(\.0) == [0, 1] && finished.map(\.1) == [.refused, .delivered])
        #expect(report.exitStatus == .partialFailure)
        #expect(transport.sent.map { $0.url.hasSuffix(token(1).text) } == [true])
        let body = try #require(transport.sentBodies.first)
        let members = try #require(try JSONValue.parse(body).objectValue)
        #expect(members["aps"] == ["alert": ["title": "New message"], "mutable-content": 1])
        let enc = try #require(members["enc"]?.stringValue)
        let sealed = try #require(Data(base64Encoded: enc))
        #expect(try ContentSealing.open(sealed, with: key) == prepared.request.sealedContent)
        #expect(!String(decoding: body, as: UTF8.self).contains("launch"))
    }

    @Test("the selection alone (a dry run) reads no key and loads no transport")
    func dryRunStops() throws {
        let (configuration, _) = try setUp(key: false)
        let source = ScriptedTransportSource()
        let sender = sender(configuration, source)
        let targets = try sender.select(try sender.prepare(alert()), warn: { _ in })
        #expect(targets.count == 2)
        #expect(source.events.isEmpty)
    }

    @Test("a missing key stops the send in the check, before delivery (where --detach forks)")
    func missingKeyBeforeReady() throws {
        let (configuration, _) = try setUp(key: false)
        let source = ScriptedTransportSource()
        let sender = sender(configuration, source)
        let prepared = try sender.prepare(alert())
        let targets = try sender.select(prepared, warn: { _ in })
        #expect(throws: ProviderKeyError.self) {
            _ = try sender.check(prepared, targets: targets, warn: { _ in })
        }
        #expect(source.events.isEmpty)
    }

    @Test("the frequency cap holds the second send back, every device reported skipped, nothing sent")
    func frequencyCap() throws {
        let (configuration, _) = try setUp(config: #"{"min_interval_seconds": 3600}"#)
        let policy = try NotificationPolicy(
            file: configuration.file, quietPolicy: nil, minimumInterval: nil,
            makeZone: { _ in FixedOffsetTimeZone(offsetMinutes: 0) })
        let source = ScriptedTransportSource()
        let sender = sender(configuration, source, policy: policy)
        guard case .sent = try sender.send(try sender.prepare(alert(collapseID: "c")), warn: { _ in }) else {
            Issue.record("first send not sent")
            return
        }
        let sentBefore = source.transport.sent.count
        guard case .heldBack(let report) = try sender.send(try sender.prepare(alert(collapseID: "c")), warn: { _ in })
        else {
            Issue.record("second send not held back")
            return
        }
        #expect(report.skipped == 2)
        #expect(source.transport.sent.count == sentBefore)
    }

    @Test("an audience without devices is noDevices; a removed device id is a selection error")
    func emptyAudience() throws {
        let (configuration, _) = try setUp()
        let sender = sender(configuration, ScriptedTransportSource())
        guard
            case .noDevices = try sender.send(
                try sender.prepare(alert(), audience: .init(groups: ["nobody"])), warn: { _ in })
        else {
            Issue.record("expected noDevices")
            return
        }
        #expect(throws: DeliverySelectionError.self) {
            _ = try sender.send(try sender.prepare(alert(), audience: .init(deviceIDs: ["gone"])), warn: { _ in })
        }
    }

    /// Sends an alert to both devices (phone: token 1, ipad: token 2) with `answers` per token.
    private func sendAnswering(
        _ answers: [Int: HTTP2Answer], config: String = "{}"
    ) throws -> (report: DeliveryReport, transport: ScriptedTransport, configuration: Configuration) {
        let (configuration, _) = try setUp(config: config)
        var script: [String: [Result<HTTP2Answer, TransportFailure>]] = [:]
        for (number, answer) in answers { script[token(number).text] = [.success(answer)] }
        let source = ScriptedTransportSource(ScriptedTransport(script))
        let sender = sender(configuration, source)
        guard case .sent(let report) = try sender.send(try sender.prepare(alert()), warn: { _ in }) else {
            throw CancellationError()
        }
        return (report, source.transport, configuration)
    }

    private static func answer(_ status: Int, _ body: String) -> HTTP2Answer {
        HTTP2Answer(status: status, headers: ["apns-id": "x"], body: Data(body.utf8))
    }

    @Test("BadEnvironmentKeyIdInToken: sent once, no other environment, nothing pruned, explained with the key id")
    func keyLimitedToTheOtherEnvironment() throws {
        let refused = Self.answer(403, #"{"reason":"BadEnvironmentKeyIdInToken"}"#)
        let (report, transport, configuration) = try sendAnswering([1: refused, 2: refused])
        #expect(transport.sent.count == 2, "no retry, no switch to the sandbox")
        #expect(transport.sent.allSatisfy { $0.url.hasPrefix("https://api.push.apple.com/") })
        #expect(report.results.allSatisfy { $0.outcome == .rejected && $0.attempts == 1 && !$0.pruned })
        #expect(report.exitStatus == .partialFailure)
        #expect(
            try StateFileRegistry(path: configuration.stateFile.value).load().devices.map(\.id).sorted() == [
                "ipad", "phone",
            ])
        #expect(
            report.advice == [
                "key KEY0000001 is limited to sandbox, not production: sign with a key for production "
                    + "(key_id and key_path) or send to sandbox (--environment sandbox) (2 devices)"
            ])
        let json = report.jsonLines(fullTokens: false)
        #expect(json.contains(#""advice":"key KEY0000001 is limited to sandbox"#))
        #expect(!json.contains("bearer") && !json.contains("PRIVATE"), "no provider token or key in the report")
    }

    @Test("ExpiredToken: pruned like Unregistered (the timestamp rule applies), reported as expired")
    func expiredDeviceToken() throws {
        // Expired an hour from now: after the device's registration, so the timestamp rule prunes it.
        let later = Int(Date().timeIntervalSince1970 * 1000) + 3_600_000
        let expired = Self.answer(410, #"{"reason":"ExpiredToken","timestamp":\#(later)}"#)
        let (report, transport, configuration) = try sendAnswering([2: expired])
        #expect(transport.sent.count == 2)
        let ipad = try #require(report.results.first { $0.target.deviceID == "ipad" })
        #expect(ipad.outcome == .unregistered && ipad.pruned && ipad.attempts == 1)
        #expect(ipad.advice == "the device token has expired: the app must register its new one")
        #expect(report.exitStatus == .success)
        #expect(report.lines(fullTokens: false).contains("410 ExpiredToken (removed from registry)"))
        #expect(try StateFileRegistry(path: configuration.stateFile.value).load().devices.map(\.id) == ["phone"])
    }

    @Test("TopicDisallowed: a key not scoped to the topic is explained, naming the topic; nothing retried")
    func topicOutsideTheKeysScope() throws {
        let refused = Self.answer(400, #"{"reason":"TopicDisallowed"}"#)
        let (report, transport, _) = try sendAnswering([1: refused])
        #expect(transport.sent.count == 2)
        let phone = try #require(report.results.first { $0.target.deviceID == "phone" })
        #expect(phone.outcome == .rejected && phone.attempts == 1)
        #expect(phone.advice?.hasPrefix("key KEY0000001 may not push to topic com.example.app") == true)
        #expect(report.advice.count == 1)
    }

    @Test("answers that need no advice get none, and the JSON keeps its members")
    func noAdviceForOtherAnswers() throws {
        let (report, _, _) = try sendAnswering([1: Self.answer(410, #"{"reason":"Unregistered"}"#)])
        #expect(report.advice.isEmpty)
        #expect(!report.jsonLines(fullTokens: false).contains("advice"))
    }
}
