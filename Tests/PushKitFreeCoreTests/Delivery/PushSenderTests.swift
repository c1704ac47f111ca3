import Crypto
import Foundation
import Testing
@testable import PushKitFreeCore

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
        _ = try DeviceRegistry(path: configuration.stateFile.value).register([
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
            transports: source)
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

    @Test("a send goes select, checkpoint, credentials, ready, transport; 410 prunes the device")
    func wholeSend() throws {
        let (configuration, _) = try setUp()
        let gone = token(2).hex
        let unregistered = HTTP2Answer(
            status: 410, headers: ["apns-id": "x"], body: Data(#"{"reason":"Unregistered"}"#))
        let source = ScriptedTransportSource(ScriptedTransport([gone: [.success(unregistered)]]))
        let sender = sender(configuration, source)
        let outcome = try sender.send(
            try sender.prepare(alert()), warn: { _ in },
            selected: { targets in
                source.note("selected \(targets.count)")
                return true
            },
            ready: { _ in
                source.note("ready")
                return true
            })
        guard case .sent(let report) = outcome else {
            Issue.record("not sent: \(outcome)")
            return
        }
        #expect(source.events == ["selected 2", "ready", "prepare", "transport"])
        #expect(report.delivered == 1 && report.pruned == 1)
        #expect(try DeviceRegistry(path: configuration.stateFile.value).load().devices.map(\.id) == ["phone"])
    }

    @Test("a dry run stops at the selection: no key is read, no transport is loaded")
    func dryRunStops() throws {
        let (configuration, _) = try setUp(key: false)
        let source = ScriptedTransportSource()
        let sender = sender(configuration, source)
        let outcome = try sender.send(try sender.prepare(alert()), warn: { _ in }, selected: { _ in false })
        guard case .stopped = outcome else {
            Issue.record("not stopped: \(outcome)")
            return
        }
        #expect(source.events.isEmpty)
    }

    @Test("a missing key stops the send before the ready checkpoint (where --detach forks)")
    func missingKeyBeforeReady() throws {
        let (configuration, _) = try setUp(key: false)
        let source = ScriptedTransportSource()
        let sender = sender(configuration, source)
        #expect(throws: ProviderKeyError.self) {
            _ = try sender.send(
                try sender.prepare(alert()), warn: { _ in },
                ready: { _ in
                    source.note("ready")
                    return true
                })
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
}
