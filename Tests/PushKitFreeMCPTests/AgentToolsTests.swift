import Foundation
import MCP
import PushKitFreeCore
import PushKitFreeRegistry
import Testing

@testable import PushKitFreeMCP

/// A host with devices in memory, recording what it was asked to send and answering with a
/// report made from `outcomes` (by device id; delivered when not named).
final class RecordingHost: AgentToolHost, @unchecked Sendable {
    let devices: [RegisteredDevice]
    var outcomes: [String: (DeliveryResult.Outcome, Int, String?, pruned: Bool)] = [:]
    private(set) var sent: [(spec: PushSpecification, urgency: Urgency?, audience: PushSender.Audience)] = []

    init(_ devices: [(String, Int, [String])]) throws {
        self.devices = try devices.map { id, n, groups in
            RegisteredDevice(
                id: id,
                record: DeviceRecord(
                    token: try DeviceToken(validating: String(repeating: String(format: "%02x", n), count: 32)),
                    name: id == "phone" ? "Ann's iPhone" : nil, groups: groups))
        }
    }

    func registeredDevices() async throws -> [RegisteredDevice] { devices }

    func send(
        _ spec: PushSpecification, urgency: Urgency?, to audience: PushSender.Audience
    ) async throws
        -> DeliveryReport
    {
        sent.append((spec, urgency, audience))
        let chosen = devices.filter { device in
            (audience.deviceIDs.isEmpty || audience.deviceIDs.contains(device.id))
                && (audience.groups.isEmpty || !Set(audience.groups).isDisjoint(with: device.record.groups))
        }
        return DeliveryReport(
            results: chosen.map { device in
                var result = DeliveryResult(
                    target: DeliveryTarget(deviceID: device.id, token: device.record.token, recordedEnvironment: nil),
                    environment: .production)
                let (outcome, status, reason, pruned) = outcomes[device.id] ?? (.delivered, 200, nil, false)
                result.outcome = outcome
                result.status = status
                result.reason = reason
                result.pruned = pruned
                result.attempts = 1
                return result
            }, seconds: 0.1)
    }

    func describe(_ error: any Error) -> String { "host: \(error)" }

    /// Set by the question tools' tests.
    var questions: (any QuestionDesk)?
}

@Suite("The agent tools")
struct AgentToolsTests {
    static func text(_ result: CallTool.Result) -> String {
        result.content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined()
    }

    @Test("tools/list: notify, withdraw and list_devices, with schemas an agent can act on")
    func definitions() throws {
        #expect(
            AgentTools.definitions.map(\.name) == [
                "notify", "withdraw", "list_devices", "ask", "wait_for_answer", "cancel_question",
            ])
        let notify = try #require(AgentTools.definitions.first)
        let properties = try #require(notify.inputSchema.objectValue?["properties"]?.objectValue)
        #expect(
            Set(properties.keys) == [
                "title", "body", "subtitle", "urgency", "url", "data", "device", "group", "collapse_id", "badge",
                "image", "volume",
            ])
        #expect(properties.values.allSatisfy { $0.objectValue?["description"]?.stringValue?.isEmpty == false })
        #expect(notify.outputSchema != nil && notify.annotations.readOnlyHint == false)
        #expect(AgentTools.definitions[2].annotations.readOnlyHint == true)
        let withdraw = AgentTools.definitions[1]
        let withdrawInput = try #require(withdraw.inputSchema.objectValue)
        #expect(Set(withdrawInput["properties"]?.objectValue?.keys ?? [:].keys) == ["id", "device", "group"])
        #expect(withdrawInput["required"] == ["id"] && withdraw.outputSchema == notify.outputSchema)
        #expect(withdraw.description?.contains("collapse_id") == true)
    }

    @Test("withdraw sends the background push of the id to the device or group, and answers as notify does")
    func withdrawSends() async throws {
        let host = try RecordingHost([("phone", 1, ["family"]), ("ipad", 2, ["family"]), ("desk", 3, [])])
        let result = await AgentTools(host: host).call("withdraw", arguments: ["id": "build-1", "group": "family"])
        #expect(result.isError == nil, "\(Self.text(result))")
        #expect(Self.text(result) == "Delivered to 2 devices (ipad, phone).")
        let sent = try #require(host.sent.first)
        #expect(sent.spec.withdraw == "build-1" && sent.spec.pushType == .background && sent.urgency == nil)
        #expect(sent.audience.groups == ["family"] && sent.audience.deviceIDs.isEmpty && sent.audience.strictGroups)
        let built = try sent.spec.build(bundleID: "com.example.app").request
        #expect(built.collapseID == nil && built.pushType == .background)
        #expect(
            try JSONValue.parse(built.payload)
                == ["aps": ["content-available": 1], "pushkit": ["withdraw": "build-1"]])
        let structured = try #require(result.structuredContent?.objectValue)
        #expect(structured["delivered"] == Value.int(2) && structured["failed"] == Value.int(0))

        let one = await AgentTools(host: host).call("withdraw", arguments: ["id": "build-1", "device": "desk"])
        #expect(Self.text(one) == "Delivered to 1 device (desk).")
        #expect(host.sent.last?.audience.deviceIDs == ["desk"])
        host.outcomes["desk"] = (.rejected, 400, "BadDeviceToken", false)
        let failed = await AgentTools(host: host).call("withdraw", arguments: ["id": "build-1", "device": "desk"])
        #expect(failed.isError == true && Self.text(failed) == "Failed for 1 device: desk (400 BadDeviceToken).")
    }

    @Test(
        "refused withdraw calls are tool errors naming the argument, and nothing is sent",
        arguments: [
            ([:], "\"id\" is missing: the collapse id the notification was sent with"),
            (
                ["id": .string(String(repeating: "c", count: 65))],
                "\"id\" must be the collapse id the notification was sent with: 1 to 64 bytes without control characters"
            ),
            (
                ["id": ""],
                "\"id\" must be the collapse id the notification was sent with: 1 to 64 bytes without control characters"
            ),
            (["id": 5], "\"id\" must be a string, not number"),
            (["id": "a", "title": "x"], "unknown argument \"title\"; withdraw takes device, group, id"),
            (
                ["id": "a", "device": "phone", "group": "family"],
                "give \"device\" or \"group\", not both (neither: every device)"
            ),
            (
                ["id": "a", "device": "nosuch"],
                "no device \"nosuch\" is registered; the devices are desk, phone (list_devices has them)"
            ),
            (["id": "a", "group": "work"], "no device is in group \"work\"; the groups are family"),
        ] as [([String: Value], String)])
    func withdrawRefusals(arguments: [String: Value], message: String) async throws {
        let host = try RecordingHost([("phone", 1, ["family"]), ("desk", 2, [])])
        let result = await AgentTools(host: host).call("withdraw", arguments: arguments)
        #expect(result.isError == true)
        #expect(Self.text(result) == message)
        #expect(host.sent.isEmpty)
    }

    @Test("notify builds the alert send-push would: url beside aps, collapse id, urgency, the group")
    func notifyBuilds() async throws {
        let host = try RecordingHost([("phone", 1, ["family"]), ("ipad", 2, ["family"]), ("desk", 3, [])])
        let result = await AgentTools(host: host).call(
            "notify",
            arguments: [
                "title": "Build", "body": "green", "urgency": "high", "url": "https://example.com/b/1",
                "data": ["job": 7], "group": "family", "collapse_id": "build-1", "badge": 2,
            ])
        #expect(result.isError == nil, "\(Self.text(result))")
        #expect(Self.text(result) == "Delivered to 2 devices (ipad, phone).")
        let sent = try #require(host.sent.first)
        #expect(sent.urgency == .high && sent.audience.groups == ["family"] && sent.audience.strictGroups)
        #expect(sent.spec.collapseID == "build-1" && sent.spec.content.badge == 2)
        #expect(sent.spec.content.customData == ["url": .string("https://example.com/b/1"), "job": .number(7)])
        let structured = try #require(result.structuredContent?.objectValue)
        #expect(structured["delivered"] == Value.int(2) && structured["failed"] == Value.int(0))
        let first = try #require(structured["results"]?.arrayValue?.first?.objectValue)
        #expect(first["token"]?.stringValue?.contains("…") == true && first["status"] == Value.int(200))
    }

    @Test("results in words: pruned, failed, and an error when nothing was delivered")
    func resultWords() async throws {
        let host = try RecordingHost([("phone", 1, ["family"]), ("old", 2, ["family"]), ("ipad", 3, ["family"])])
        host.outcomes["old"] = (.unregistered, 410, "Unregistered", true)
        host.outcomes["ipad"] = (.rejected, 400, "BadDeviceToken", false)
        let mixed = await AgentTools(host: host).call("notify", arguments: ["body": "hi"])
        #expect(
            Self.text(mixed)
                == "Delivered to 1 device (phone); 1 token pruned: old (Unregistered, removed from the registry); "
                + "failed for 1 device: ipad (400 BadDeviceToken).")
        #expect(mixed.isError == nil)
        let failed = await AgentTools(host: host).call("notify", arguments: ["body": "hi", "device": "ipad"])
        #expect(failed.isError == true && Self.text(failed) == "Failed for 1 device: ipad (400 BadDeviceToken).")
    }

    @Test("an encrypted send's devices without a content key: refused in words, never called delivered")
    func refusedWords() async throws {
        let host = try RecordingHost([("phone", 1, []), ("ipad", 2, [])])
        host.outcomes["ipad"] = (.refused, 0, "no content key", false)
        let mixed = await AgentTools(host: host).call("notify", arguments: ["body": "hi"])
        #expect(
            Self.text(mixed)
                == "Delivered to 1 device (phone); refused for 1 device, never sent in clear: ipad (no content key).")
        #expect(mixed.isError == nil)
        #expect(mixed.structuredContent?.objectValue?["failed"] == Value.int(1))
        let refused = await AgentTools(host: host).call("notify", arguments: ["body": "hi", "device": "ipad"])
        #expect(refused.isError == true, "nothing reached a device: \(Self.text(refused))")
    }

    @Test(
        "refused calls are tool errors that say what to do",
        arguments: [
            (
                ["body": "x", "device": "nosuch"],
                "no device \"nosuch\" is registered; the devices are desk, phone (list_devices has them)"
            ),
            (["body": "x", "group": "work"], "no device is in group \"work\"; the groups are family"),
            (["subtitle": "only"], "nothing to send: give \"title\" or \"body\" (or both)"),
            (["body": "x", "urgency": "asap"], "\"urgency\" must be low, normal, high or critical, not \"asap\""),
            (
                ["body": "x", "device": "phone", "group": "family"],
                "give \"device\" or \"group\", not both (neither: every device)"
            ),
            (
                ["body": "x", "tilte": "y"],
                "unknown argument \"tilte\"; notify takes badge, body, collapse_id, data, device, group, image, subtitle, title, urgency, url, volume"
            ),
            (
                ["body": "x", "url": "not a url"],
                "\"url\" must be a URL such as https://example.com/page, not \"not a url\""
            ),
            (
                ["body": "x", "collapse_id": .string(String(repeating: "c", count: 65))],
                "\"collapse_id\" must be 1 to 64 bytes, not 65"
            ),
            (["body": 5], "\"body\" must be a string, not number"),
            (["body": "x", "badge": -1], "\"badge\" must be 0 or more (0 clears it), not -1"),
            (["body": "x", "data": ["aps": [:]]], "\"data\" cannot set \"aps\"; it goes beside it"),
        ] as [([String: Value], String)])
    func refusals(arguments: [String: Value], message: String) async throws {
        let host = try RecordingHost([("phone", 1, ["family"]), ("desk", 2, [])])
        let result = await AgentTools(host: host).call("notify", arguments: arguments)
        #expect(result.isError == true)
        #expect(Self.text(result) == message)
        #expect(result.structuredContent == nil)
        #expect(host.sent.isEmpty)
    }

    @Test("urgency critical with a volume reaches the host as asked; a volume that is no number is refused")
    func critical() async throws {
        let host = try RecordingHost([("phone", 1, [])])
        let sent = await AgentTools(host: host).call(
            "notify", arguments: ["title": "Smoke alarm", "urgency": "critical", "volume": 0.4])
        #expect(sent.isError != true, "\(Self.text(sent))")
        #expect(host.sent.first?.urgency == .critical && host.sent.first?.spec.volume == 0.4)
        let refused = await AgentTools(host: host).call(
            "notify", arguments: ["title": "x", "urgency": "critical", "volume": "loud"])
        #expect(refused.isError == true && Self.text(refused) == "\"volume\" must be a number, not string")
        #expect(host.sent.count == 1)
    }

    @Test("an unknown tool is a tool error naming the tools")
    func unknownTool() async throws {
        let host = try RecordingHost([("phone", 1, [])])
        let unknown = await AgentTools(host: host).call("notify_all", arguments: nil)
        #expect(unknown.isError == true)
        #expect(
            Self.text(unknown)
                == "unknown tool \"notify_all\"; the tools are notify, withdraw, list_devices, ask, wait_for_answer, cancel_question"
        )
    }

    @Test("list_devices: ids, names, groups, tokens masked; one group; none registered")
    func listDevices() async throws {
        let host = try RecordingHost([("phone", 1, ["family"]), ("desk", 2, [])])
        let all = await AgentTools(host: host).call("list_devices", arguments: [:])
        #expect(Self.text(all) == "2 devices: desk, phone (Ann's iPhone; groups: family).")
        let devices = try #require(all.structuredContent?.objectValue?["devices"]?.arrayValue)
        #expect(devices.first?.objectValue?["token"] == Value.string("02020202…0202"))
        let family = await AgentTools(host: host).call("list_devices", arguments: ["group": "family"])
        #expect(Self.text(family) == "1 device in group \"family\": phone (Ann's iPhone; groups: family).")
        let empty = await AgentTools(host: try RecordingHost([])).call("list_devices", arguments: nil)
        #expect(empty.isError == nil && Self.text(empty).hasPrefix("No devices are registered"))
        let notify = await AgentTools(host: try RecordingHost([])).call("notify", arguments: ["body": "x"])
        #expect(notify.isError == true && Self.text(notify).hasPrefix("no devices are registered, so nothing was sent"))
        let bad = await AgentTools(host: host).call("list_devices", arguments: ["grop": "x"])
        #expect(bad.isError == true && Self.text(bad) == "unknown argument \"grop\"; list_devices takes group")
    }

    @Test("list_devices says each device's transport; an FCM device has no environment, its token masked")
    func listDevicesTransport() throws {
        let fcm = try DeviceToken(
            validating: "fJ3kQ9xY000001:APA91b" + String(repeating: "Xy_9-Qw3Er", count: 14), transport: .fcm)
        let apns = try DeviceToken(validating: String(repeating: "ab", count: 32))
        let list = DeviceList(
            [
                RegisteredDevice(id: "phone", record: DeviceRecord(token: apns, environment: .sandbox)),
                RegisteredDevice(id: "pixel", record: DeviceRecord(token: fcm)),
            ], group: nil)
        let entries = try #require(list.structured.objectValue?["devices"]?.arrayValue).compactMap(\.objectValue)
        #expect(entries.map { $0["id"] } == [.string("phone"), .string("pixel")])
        #expect(entries.map { $0["transport"] } == [.string("apns"), .string("fcm")])
        #expect(entries[1]["environment"] == .null && entries[1]["token"] == .string("fJ3kQ9xY…w3Er"))
    }

    @Test(
        "/mcp takes one JSON-RPC request or notification; anything else is 400 before the SDK",
        arguments: [
            (#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#, nil),
            (#"{"jsonrpc": "2.0", "id": "a", "method": "ping", "params": {}}"#, nil),
            (#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#, nil),
            (#"not json"#, -32700),
            (#"[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]"#, -32600),
            (#"{"jsonrpc": "1.0", "id": 1, "method": "ping"}"#, -32600),
            (#"{"jsonrpc": "2.0", "id": 1}"#, -32600),
            (#"{"jsonrpc": "2.0", "id": 1, "method": "ping", "result": {}}"#, -32600),
            (#"{"jsonrpc": "2.0", "id": true, "method": "ping"}"#, -32600),
            (#"{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}"#, -32600),
            (#"{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": []}"#, -32600),
        ] as [(String, Int?)])
    func envelope(body: String, code: Int?) throws {
        let refusal = AgentServer.refusal(of: Data(body.utf8))
        #expect(refusal?.statusCode == (code == nil ? nil : 400))
        if let code, let data = refusal?.bodyData {
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect((object?["error"] as? [String: Any])?["code"] as? Int == code)
        }
    }

    /// The backstop deadline, out of the way: these run in the test process, whose few cooperative
    /// threads other tests may hold for a while (a 10-second deadline answered 500 once under a full run).
    static let noDeadline = Duration.seconds(3600)

    @Test("over HTTP: initialize, tools/list and a call, each request its own server")
    func http() async throws {
        let host = try RecordingHost([("phone", 1, [])])
        let tools = AgentTools(host: host)
        func post(_ body: String) async -> HTTPResponse {
            await AgentServer.answer(
                HTTPRequest(method: "POST", headers: ["Content-Type": "application/json"], body: Data(body.utf8)),
                tools: tools, deadline: Self.noDeadline)
        }
        let initialize = await post(
            #"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#
        )
        #expect(initialize.statusCode == 200)
        let answer = try JSONSerialization.jsonObject(with: try #require(initialize.bodyData)) as? [String: Any]
        let info = (answer?["result"] as? [String: Any])?["serverInfo"] as? [String: Any]
        #expect(info?["name"] as? String == "pushkit-free" && info?["version"] as? String == PushKitFree.version)
        #expect(await post(#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#).statusCode == 202)
        let call = await post(
            #"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "notify", "arguments": {"body": "hi"}}}"#
        )
        let result = try JSONSerialization.jsonObject(with: try #require(call.bodyData)) as? [String: Any]
        let content = ((result?["result"] as? [String: Any])?["content"] as? [[String: Any]])?.first
        #expect(content?["text"] as? String == "Delivered to 1 device (phone).")
        #expect(host.sent.count == 1)
        let wrongVersion = await AgentServer.answer(
            HTTPRequest(
                method: "POST", headers: ["MCP-Protocol-Version": "1999-01-01"],
                body: Data(#"{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}"#.utf8)),
            tools: tools, deadline: Self.noDeadline)
        #expect(wrongVersion.statusCode == 400)
    }
}
