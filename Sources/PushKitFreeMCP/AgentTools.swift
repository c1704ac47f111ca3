import MCP
import PushKitFreeCore
import PushKitFreeRegistry

/// The tools an agent sees, `notify` and `list_devices`, and what calling each one does: the one
/// definition `pushkit-mcp` (stdio) and `register-apns serve`'s `/mcp` (HTTP) both serve.
///
/// A call never throws to the transport: a refused call (unknown device, nothing to send, a bad
/// argument) or a failed send is a result with `isError` and a sentence saying what to do.
package struct AgentTools: Sendable {
    /// The program's registry and send pipeline.
    package let host: any AgentToolHost

    /// The tools over `host`'s registry and send pipeline.
    package init(host: any AgentToolHost) {
        self.host = host
    }

    /// The tools, in the order `tools/list` gives them.
    package static let definitions: [Tool] = [notify, listDevices]

    /// `notify`: an alert to one device, a group, or every device.
    static let notify = Tool(
        name: "notify",
        title: "Send a push notification",
        description: """
            Send a push notification to the user's iPhone or iPad (the app registered with this server). \
            Give a title, a body, or both. Without "device" or "group" it goes to every registered device; \
            call list_devices for the ids and groups. To replace a notification sent earlier (a status that \
            changed, a countdown), send again with the same "collapse_id". The result says which devices it \
            was delivered to, which tokens were pruned (the app was removed) and which failed, and why.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "title": ["type": "string", "description": "The notification's title, shown in bold."],
                "body": ["type": "string", "description": "The message text."],
                "subtitle": ["type": "string", "description": "A line between the title and the body."],
                "urgency": [
                    "type": "string", "enum": ["low", "normal", "high"],
                    "description": .string(
                        "low: delivered quietly, no sound; normal: sound and banner (the default); high: "
                            + "time-sensitive, breaks through Focus. Use high only for what cannot wait."),
                ],
                "url": [
                    "type": "string",
                    "description": "A link the app opens when the notification is tapped (sent beside aps as \"url\").",
                ],
                "data": [
                    "type": "object",
                    "description": "Custom keys for the app, sent beside aps (for example what to open).",
                ],
                "device": [
                    "type": "string",
                    "description": "One device id from list_devices. Leave out device and group for every device.",
                ],
                "group": ["type": "string", "description": "A group name from list_devices: its devices only."],
                "collapse_id": [
                    "type": "string", "maxLength": .int(NotifyRequest.collapseIDLimit),
                    "description": .string(
                        "An id of your choosing (at most 64 bytes): a later notification with the same id "
                            + "replaces this one on the device instead of adding another."),
                ],
                "badge": [
                    "type": "integer", "minimum": 0,
                    "description": "The number on the app icon; 0 clears it. Leave out to keep it.",
                ],
            ],
            "additionalProperties": false,
        ],
        annotations: .init(
            title: "Send a push notification", readOnlyHint: false, destructiveHint: false, idempotentHint: false,
            openWorldHint: true),
        outputSchema: [
            "type": "object",
            "properties": [
                "summary": ["type": "string", "description": "What happened, in one sentence."],
                "delivered": ["type": "integer"],
                "pruned": ["type": "integer"],
                "failed": ["type": "integer"],
                "skipped": ["type": "integer"],
                "results": [
                    "type": "array",
                    "description": "One entry per device; tokens are masked.",
                    "items": [
                        "type": "object",
                        "properties": [
                            "device": ["type": ["string", "null"]],
                            "token": ["type": "string"],
                            "outcome": [
                                "type": "string",
                                "enum": [
                                    "delivered", "unregistered", "rejected", "failed", "skipped", "not_tried",
                                    "unknown", "refused",
                                ],
                            ],
                            "status": ["type": "integer"],
                            "reason": ["type": ["string", "null"]],
                            "apns_id": ["type": ["string", "null"]],
                            "pruned": ["type": "boolean"],
                        ],
                        "required": ["device", "token", "outcome", "status", "pruned"],
                    ],
                ],
            ],
            "required": ["summary", "delivered", "pruned", "failed", "skipped", "results"],
        ]
    )

    /// `list_devices`: the registered devices, tokens masked.
    static let listDevices = Tool(
        name: "list_devices",
        title: "List the registered devices",
        description: """
            List the devices registered for push notifications: each one's id (what notify's "device" takes), \
            name, model and groups (what notify's "group" takes). Tokens are masked.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "group": ["type": "string", "description": "Only the devices in this group."]
            ],
            "additionalProperties": false,
        ],
        annotations: .init(
            title: "List the registered devices", readOnlyHint: true, destructiveHint: false, idempotentHint: true,
            openWorldHint: false),
        outputSchema: [
            "type": "object",
            "properties": [
                "count": ["type": "integer"],
                "groups": ["type": "array", "items": ["type": "string"]],
                "devices": [
                    "type": "array",
                    "items": [
                        "type": "object",
                        "properties": [
                            "id": ["type": "string"],
                            "name": ["type": ["string", "null"]],
                            "model": ["type": ["string", "null"]],
                            "groups": ["type": "array", "items": ["type": "string"]],
                            "token": ["type": "string", "description": "Masked: the first 8 and last 4 characters."],
                            "transport": [
                                "type": "string", "enum": ["apns", "fcm"],
                                "description": "apns for an Apple device token, fcm for a Firebase registration token.",
                            ],
                            "environment": ["type": ["string", "null"], "description": "APNs only; null for fcm."],
                            "last_registered": ["type": "string"],
                        ],
                        "required": ["id", "name", "model", "groups", "token", "transport", "environment"],
                    ],
                ],
            ],
            "required": ["count", "groups", "devices"],
        ]
    )

    /// Runs the tool `name` with `arguments`.
    package func call(_ name: String, arguments: [String: Value]?) async -> CallTool.Result {
        let arguments = (arguments ?? [:]).mapValues { JSONValue($0) }
        do {
            switch name {
            case Self.notify.name: return try await notify(arguments)
            case Self.listDevices.name: return try await listDevices(arguments)
            default:
                throw AgentToolError(
                    "unknown tool \"\(name)\"; the tools are \(Self.definitions.map(\.name).joined(separator: ", "))")
            }
        } catch let error as AgentToolError {
            return Self.failure(error.description)
        } catch let error as PayloadError {
            return Self.failure(error.worded(naming: NotifyRequest.argumentName))
        } catch {
            return Self.failure(host.describe(error))
        }
    }

    /// `notify`: checks the arguments and the names in them against the registry, then sends.
    private func notify(_ arguments: [String: JSONValue]) async throws -> CallTool.Result {
        let request = try NotifyRequest(arguments)
        let devices = try await host.registeredDevices()
        if let device = request.device, !devices.contains(where: { $0.id == device }) {
            throw AgentToolError(
                "no device \"\(TerminalText.field(device))\" is registered; the devices are "
                    + Self.listed(devices.map(\.id).sorted()) + " (list_devices has them)")
        }
        if let group = request.group, !devices.contains(where: { $0.record.groups.contains(group) }) {
            throw AgentToolError(
                "no device is in group \"\(TerminalText.field(group))\"; the groups are "
                    + Self.listed(Set(devices.flatMap(\.record.groups)).sorted()))
        }
        if devices.isEmpty {
            throw AgentToolError(
                "no devices are registered, so nothing was sent: the app registers itself when it starts")
        }
        let report = try await host.send(request.specification, urgency: request.urgency, to: request.audience)
        guard !report.results.isEmpty else {
            throw AgentToolError("the devices named were removed before the notification was sent; nothing was sent")
        }
        let result = NotifyResult(report)
        return Self.success(result.text, structured: result.structured, isError: result.isError)
    }

    /// `list_devices`: the registry's devices, those of `group` when it is given.
    private func listDevices(_ arguments: [String: JSONValue]) async throws -> CallTool.Result {
        if let unknown = arguments.keys.sorted().first(where: { $0 != "group" }) {
            throw AgentToolError("unknown argument \"\(unknown)\"; list_devices takes group")
        }
        let group: String?
        do throws(RegistrationBodyError) {
            group = try RequestBodyFields(arguments).string("group")
        } catch {
            throw AgentToolError(error.description)
        }
        let list = DeviceList(try await host.registeredDevices(), group: group)
        return Self.success(list.text, structured: list.structured, isError: false)
    }

    /// Up to ten names, then how many more; "none" for none.
    private static func listed(_ names: [String]) -> String {
        guard !names.isEmpty else { return "none" }
        let shown = names.prefix(10).map { TerminalText.field($0) }.joined(separator: ", ")
        return names.count > 10 ? "\(shown) and \(names.count - 10) more" : shown
    }

    private static func success(_ text: String, structured: JSONValue, isError: Bool) -> CallTool.Result {
        let content: Value? = Value(json: structured)
        return CallTool.Result(
            content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: content,
            isError: isError ? true : nil)
    }

    private static func failure(_ message: String) -> CallTool.Result {
        CallTool.Result(content: [.text(text: message, annotations: nil, _meta: nil)], isError: true)
    }
}
