import MCP
import PushKitFreeCore
import PushKitFreeRegistry

/// The tools an agent sees, `notify`, `withdraw`, `list_devices` and the question tools (`ask`,
/// `wait_for_answer`, `cancel_question`), and what calling each one does: the one definition
/// `pushkit-mcp` (stdio) and `register-apns serve`'s `/mcp` (HTTP) both serve.
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
    package static let definitions: [Tool] = [notify, withdraw, listDevices, ask, waitForAnswer, cancelQuestion]

    /// `notify`: an alert to one device, a group, or every device.
    static let notify = Tool(
        name: "notify",
        title: "Send a push notification",
        description: """
            Send a push notification to the user's iPhone or iPad (the app registered with this server). \
            Give a title, a body, or both. Without "device" or "group" it goes to every registered device; \
            call list_devices for the ids and groups. To replace a notification sent earlier (a status that \
            changed, a countdown), send again with the same "collapse_id"; to take it back, call withdraw with \
            that id. The result says which devices it was delivered to, which tokens were pruned (the app was \
            removed) and which failed, and why.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "title": ["type": "string", "description": "The notification's title, shown in bold."],
                "body": ["type": "string", "description": "The message text."],
                "subtitle": ["type": "string", "description": "A line between the title and the body."],
                "urgency": [
                    "type": "string", "enum": .array(Urgency.allCases.map { .string($0.rawValue) }),
                    "description": .string(
                        "low: delivered quietly, no sound; normal: sound and banner (the default); high: "
                            + "time-sensitive, breaks through Focus. Use high only for what cannot wait. "
                            + "critical: sounds even when the phone is muted, only for an emergency (a smoke "
                            + "alarm, a flood), and only if the server's config allows critical alerts."),
                ],
                "volume": [
                    "type": "number", "minimum": 0, "maximum": 1,
                    "description": "A critical alert's volume, from 0 to 1 (default 1); only with urgency critical.",
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
                "image": [
                    "type": "string", "maxLength": .int(PushSpecification.imageURLLimit),
                    "description": .string(
                        "An https:// URL of a picture (a chart, a screenshot) the app shows in the notification; "
                            + "it needs a title or a body."),
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

    /// `withdraw`: takes back a notification sent earlier with `collapse_id`.
    static let withdraw = Tool(
        name: "withdraw",
        title: "Take back a notification",
        description: """
            Take back a notification sent earlier with notify's "collapse_id" (it is out of date, the work it \
            announced was cancelled): a silent push the app handles by removing the notification with that id \
            from the device's notification center. Give the same "collapse_id" as "id", and the same device or \
            group. iOS delivers silent pushes at its discretion, so the notification may stay a while; one sent \
            without a collapse_id cannot be taken back. The result says which devices the push reached, as \
            notify's does.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "id": [
                    "type": "string", "minLength": 1, "maxLength": .int(PushSpecification.withdrawIDLimit),
                    "description": "The collapse_id the notification was sent with.",
                ],
                "device": [
                    "type": "string",
                    "description": "One device id from list_devices. Leave out device and group for every device.",
                ],
                "group": ["type": "string", "description": "A group name from list_devices: its devices only."],
            ],
            "required": ["id"],
            "additionalProperties": false,
        ],
        annotations: .init(
            title: "Take back a notification", readOnlyHint: false, destructiveHint: true, idempotentHint: true,
            openWorldHint: true),
        outputSchema: notify.outputSchema
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

    /// `ask`: a question with buttons or a typed reply, answered on the phone; returns at once.
    static let ask = Tool(
        name: "ask",
        title: "Ask the user a question on their phone",
        description: """
            Ask the user a question on their iPhone: a notification with up to four buttons ("choices") or a \
            text field ("reply"), answered from the lock screen. Returns at once with the question's id; then \
            call wait_for_answer with that id until the state is no longer pending. Use it to get approval \
            before doing something that matters (deploying, deleting, spending) or to ask for a short answer. \
            Give choices such as [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", \
            "destructive": true}], or reply: {} for a typed answer, never both. Nobody answering in time is \
            not a yes.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "title": ["type": "string", "minLength": 1, "description": "The question, shown in bold."],
                "body": ["type": "string", "description": "Details under the question (what, where, why)."],
                "choices": [
                    "type": "array", "minItems": 1, "maxItems": 4,
                    "description": "The buttons, 1 to 4; the answer is the id of the one tapped. Not with reply.",
                    "items": [
                        "type": "object",
                        "properties": [
                            "id": [
                                "type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$",
                                "description": "What the answer names (1 to 64 of A-Z a-z 0-9 _ . -), unique.",
                            ],
                            "title": [
                                "type": "string", "minLength": 1, "maxLength": 64,
                                "description": "The button's text.",
                            ],
                            "destructive": ["type": "boolean", "description": "Shown in red."],
                            "authentication_required": [
                                "type": "boolean",
                                "description": "Counts only once the phone is unlocked (Face ID, passcode).",
                            ],
                        ],
                        "required": ["id", "title"],
                        "additionalProperties": false,
                    ],
                ],
                "reply": [
                    "type": "object",
                    "description": "Ask for a typed answer instead of buttons ({} for the defaults). Not with choices.",
                    "properties": [
                        "placeholder": ["type": "string", "description": "The text field's placeholder."],
                        "button": ["type": "string", "description": "The send button's text."],
                    ],
                    "additionalProperties": false,
                ],
                "device": [
                    "type": "string",
                    "description": "One device id from list_devices. Leave out device and group for every device.",
                ],
                "group": ["type": "string", "description": "A group name from list_devices: its devices only."],
                "timeout": [
                    "type": "integer", "minimum": 1, "maximum": 86400,
                    "description": "Seconds until the question expires unanswered; 300 when left out.",
                ],
                "urgency": [
                    "type": "string", "enum": ["low", "normal", "high"],
                    "description": "low: quiet; normal: sound and banner (the default); high: breaks through Focus.",
                ],
                "encrypt": [
                    "type": "boolean",
                    "description":
                        "Seal the question with each device's content key; the server's default when left out.",
                ],
            ],
            "required": ["title"],
            "additionalProperties": false,
        ],
        annotations: .init(
            title: "Ask the user a question on their phone", readOnlyHint: false, destructiveHint: false,
            idempotentHint: false, openWorldHint: true),
        outputSchema: [
            "type": "object",
            "properties": [
                "summary": ["type": "string", "description": "What happened, and what to call next."],
                "id": ["type": "string", "description": "The question's id, for wait_for_answer and cancel_question."],
                "expires_at": ["type": "string", "description": "When it expires unanswered (ISO 8601, UTC)."],
                "devices": ["type": "array", "items": ["type": "string"], "description": "The devices asked."],
            ],
            "required": ["summary", "id", "expires_at"],
        ]
    )

    /// `wait_for_answer`: the question's state, waiting up to 55 seconds while it is pending.
    static let waitForAnswer = Tool(
        name: "wait_for_answer",
        title: "Wait for the answer to a question",
        description: """
            Wait for the answer to a question asked with ask. Each call waits up to "wait" seconds (at most 55, \
            55 when left out) and returns the state. pending: nobody has answered yet; call wait_for_answer \
            again with the same id. answered: answer.choice is the id of the button tapped, or answer.text \
            what was typed. expired: nobody answered in time; treat it as "no" and do not go ahead. \
            cancelled: the question was withdrawn; treat it as "no" too. Only an answered choice that says \
            yes is approval.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "id": ["type": "string", "description": "The id ask returned."],
                "wait": [
                    "type": "integer", "minimum": 0, "maximum": .int(QuestionTools.longestWait),
                    "description": "The longest this call waits for an answer, in seconds; 55 when left out.",
                ],
            ],
            "required": ["id"],
            "additionalProperties": false,
        ],
        annotations: .init(
            title: "Wait for the answer to a question", readOnlyHint: true, destructiveHint: false,
            idempotentHint: true, openWorldHint: true),
        outputSchema: questionStatusSchema
    )

    /// `cancel_question`: withdraws a question that is no longer needed.
    static let cancelQuestion = Tool(
        name: "cancel_question",
        title: "Cancel a question",
        description: """
            Cancel a question asked with ask that is no longer needed (the user answered in the terminal, the \
            work finished): its buttons are withdrawn from the phone, and a later answer is refused. A question \
            already answered or expired cannot be cancelled; the result then says its state.
            """,
        inputSchema: [
            "type": "object",
            "properties": [
                "id": ["type": "string", "description": "The id ask returned."]
            ],
            "required": ["id"],
            "additionalProperties": false,
        ],
        annotations: .init(
            title: "Cancel a question", readOnlyHint: false, destructiveHint: true, idempotentHint: true,
            openWorldHint: true),
        outputSchema: questionStatusSchema
    )

    /// What `wait_for_answer` and `cancel_question` return: the question's status and a summary.
    static let questionStatusSchema: Value = [
        "type": "object",
        "properties": [
            "summary": ["type": "string", "description": "The state in words, and what to do next."],
            "id": ["type": "string"],
            "state": ["type": "string", "enum": ["pending", "answered", "expired", "cancelled"]],
            "expires_at": ["type": "string"],
            "answer": [
                "type": "object",
                "description": "Only when answered: choice (a button's id) or text, the device, answered_at.",
                "properties": [
                    "choice": ["type": "string"],
                    "text": ["type": "string"],
                    "device": ["type": "string"],
                    "answered_at": ["type": "string"],
                ],
            ],
        ],
        "required": ["summary", "id", "state"],
    ]

    /// Runs the tool `name` with `arguments`.
    package func call(_ name: String, arguments: [String: Value]?) async -> CallTool.Result {
        let arguments = (arguments ?? [:]).mapValues { JSONValue($0) }
        do {
            switch name {
            case Self.notify.name: return try await notify(arguments)
            case Self.withdraw.name: return try await withdraw(arguments)
            case Self.listDevices.name: return try await listDevices(arguments)
            case Self.ask.name: return try await ask(arguments)
            case Self.waitForAnswer.name: return try await waitForAnswer(arguments)
            case Self.cancelQuestion.name: return try await cancelQuestion(arguments)
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
        try await checkAudience(device: request.device, group: request.group)
        return try await send(
            request.specification, urgency: request.urgency, to: request.audience, what: "notification")
    }

    /// Sends `spec` and answers with what came of it (`NotifyResult`); `what` names the push in the
    /// error when the devices named were removed before it was sent.
    private func send(
        _ spec: PushSpecification, urgency: Urgency?, to audience: PushSender.Audience, what: String
    ) async throws -> CallTool.Result {
        let report = try await host.send(spec, urgency: urgency, to: audience)
        guard !report.results.isEmpty else {
            throw AgentToolError("the devices named were removed before the \(what) was sent; nothing was sent")
        }
        let result = NotifyResult(report)
        return Self.success(result.text, structured: result.structured, isError: result.isError)
    }

    /// `withdraw`: checks the arguments and the names in them against the registry, then sends the
    /// withdrawal and answers as `notify` does.
    private func withdraw(_ arguments: [String: JSONValue]) async throws -> CallTool.Result {
        let request = try WithdrawalFields(arguments: arguments)
        try await checkAudience(device: request.device, group: request.group)
        return try await send(request.specification, urgency: nil, to: request.audience, what: "withdrawal")
    }

    /// Refuses a `device` that is not registered, a `group` no device is in, and an empty registry.
    private func checkAudience(device: String?, group: String?) async throws {
        let devices = try await host.registeredDevices()
        if let device, !devices.contains(where: { $0.id == device }) {
            throw AgentToolError(
                "no device \"\(TerminalText.field(device))\" is registered; the devices are "
                    + Self.listed(devices.map(\.id).sorted()) + " (list_devices has them)")
        }
        if let group, !devices.contains(where: { $0.record.groups.contains(group) }) {
            throw AgentToolError(
                "no device is in group \"\(TerminalText.field(group))\"; the groups are "
                    + Self.listed(Set(devices.flatMap(\.record.groups)).sorted()))
        }
        if devices.isEmpty {
            throw AgentToolError(
                "no devices are registered, so nothing was sent: the app registers itself when it starts")
        }
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

    static func success(_ text: String, structured: JSONValue, isError: Bool) -> CallTool.Result {
        let content: Value? = Value(json: structured)
        return CallTool.Result(
            content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: content,
            isError: isError ? true : nil)
    }

    static func failure(_ message: String) -> CallTool.Result {
        CallTool.Result(content: [.text(text: message, annotations: nil, _meta: nil)], isError: true)
    }
}
