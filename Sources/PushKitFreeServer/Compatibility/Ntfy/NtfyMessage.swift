#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A message published with ntfy's protocol (`PUT`/`POST /<topic>` with the message as the body,
/// or a JSON object to `/`), read into what this server sends: the topic names the devices
/// (`NotifierAudience`), the priority the interruption level, the click URL the `url` beside `aps`,
/// the tags text, an attachment's URL (`Attach`, `attach`, `a`) the image the app attaches
/// (`image_url` beside `aps`; https only).
///
/// Every message is sent with a collapse id derived from its topic and its sequence id
/// (`collapseID(topic:sequenceID:)`): the one given (`X-Sequence-ID`, `Sequence-ID`, `SID`, the
/// query's `sequence_id` or `sid`, the JSON member `sequence_id`, or the path's
/// `PUT /<topic>/<sequence_id>`), else, as ntfy has it, the message's own id. A later message with
/// the same sequence id replaces the notification, and clearing or deleting it
/// (`PUT /<topic>/<sequence_id>/clear`, `DELETE /<topic>/<sequence_id>`) takes it back.
///
/// ntfy's parameters come as headers (`X-Title` or `Title`), or query parameters (`title`, `t`);
/// a header wins over the query, a JSON member over both. Parameters this server has no use for
/// (`Markdown`, `Icon`, `Filename`, `Actions` as a header, `Email`, `Call`, `Cache`,
/// `Firebase`, anything unknown) are accepted and ignored. Scheduled delivery (`Delay`, `At`,
/// `In`) is refused with a 400: this server keeps no queue of future sends.
package struct NtfyMessage: Sendable, Equatable {
    /// The topic: a device id or a group.
    package var topic: String
    /// The message: the body, else the `message` parameter, else ntfy's `triggered`.
    package var message: String
    /// The title, with the emoji of the tags that name one before it.
    package var title: String?
    /// 1 (min) to 5 (max); 3 is the default.
    package var priority: Int
    /// The tags as given.
    package var tags: [String]
    /// The URL the app opens when the notification is tapped.
    package var click: String?
    /// The attachment's URL (`Attach`): sent as the image the app attaches.
    package var attach: String?
    /// The sequence id given, `nil` when none was: the message's `id` then stands in for it.
    package var sequenceID: String?
    /// The message's id, as ntfy makes them (`makeID`): its sequence id when none was given.
    package var id: String

    /// The headers and query parameters of a publish request, names lowercased.
    package struct Parameters: Sendable {
        /// The headers, by lowercased name.
        package var headers: [String: String]
        /// The query parameters, by lowercased name.
        package var query: [String: String]

        /// The parameters of a request; names are lowercased, the first of each kept.
        package init(headers: [String: String] = [:], query: [String: String] = [:]) {
            self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
            self.query = Dictionary(query.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        }

        /// The first of `headers` that is present, else the first of `query`.
        func value(headers names: [String], query keys: [String]) -> String? {
            for name in names { if let value = headers[name] { return value } }
            for key in keys { if let value = query[key] { return value } }
            return nil
        }
    }

    /// The message ntfy publishes when a request gives none.
    package static let defaultMessage = "triggered"

    /// A message from `PUT`/`POST /<topic>` (or `PUT /<topic>/<sequence_id>`, whose `sequenceID`
    /// wins over the parameters'): the body is the message (UTF-8 text).
    /// - Throws: `EndpointError` 400 naming the parameter at fault.
    package init(
        topic: String, sequenceID: String? = nil, body: Data, parameters: Parameters, reservedNames: Set<String>
    ) throws(EndpointError) {
        try NotifierAudience.validate(topic, as: "topic", reservedNames: reservedNames)
        if let sequenceID { try Self.checkSequenceID(sequenceID) }
        guard let text = String(data: body, encoding: .utf8) else {
            throw .badRequest("the message must be UTF-8 text; attachments are not supported")
        }
        try self.init(topic: topic, message: text, json: [:], parameters: parameters, pathSequenceID: sequenceID)
    }

    /// A message from a JSON object posted to `/` (`{"topic", "message", "title", "priority",
    /// "tags", "click", "actions", "sequence_id", ...}`), with the request's headers and query
    /// parameters for what the object leaves out (Apprise sends `X-Priority` and `X-Tags` beside
    /// its object).
    /// - Throws: `EndpointError` 400 naming the member at fault.
    package init(json: JSONValue, parameters: Parameters, reservedNames: Set<String>) throws(EndpointError) {
        guard let object = json.objectValue else {
            throw .badRequest("expected a JSON object with \"topic\", not \(json.typeName)")
        }
        guard let topicValue = object["topic"], topicValue != .null else {
            throw .badRequest("\"topic\" is missing: the group or device id to send to")
        }
        guard let topic = topicValue.stringValue else {
            throw .badRequest("\"topic\" must be a string, not \(topicValue.typeName)")
        }
        try NotifierAudience.validate(topic, as: "topic", reservedNames: reservedNames)
        try self.init(
            topic: topic, message: try Self.string(object, "message") ?? "", json: object, parameters: parameters,
            pathSequenceID: nil)
    }

    private init(
        topic: String, message: String, json: [String: JSONValue], parameters: Parameters, pathSequenceID: String?
    ) throws(EndpointError) {
        self.topic = topic
        id = Self.makeID()
        // Every sequence id given is checked, the ones another source outranks too; an empty one is none.
        let given =
            [pathSequenceID, try Self.string(json, "sequence_id")]
            + Self.sequenceHeaders.map { parameters.headers[$0] } + Self.sequenceQuery.map { parameters.query[$0] }
        let sequenceIDs = given.compactMap { $0 }.filter { !$0.isEmpty }
        for text in sequenceIDs { try Self.checkSequenceID(text) }
        sequenceID = sequenceIDs.first
        for (key, names) in Self.scheduling {
            if json[key] != nil && json[key] != .null || parameters.value(headers: names, query: names) != nil {
                throw .badRequest(
                    "scheduled delivery (\(key)) is not supported: this server keeps no queue of future sends; "
                        + "send the request at the time instead (at, systemd-run --on-active, cron; "
                        + "see examples/remind-in.sh)")
            }
        }
        var text = message
        if text.isEmpty { text = parameters.value(headers: ["x-message", "message"], query: ["message", "m"]) ?? "" }
        if text.isEmpty { text = Self.defaultMessage }
        self.message = text

        title =
            try Self.string(json, "title")
            ?? parameters.value(headers: ["x-title", "title"], query: ["title", "t", "ti"])
        if title?.isEmpty == true { title = nil }

        if let value = json["priority"], value != .null {
            if let number = value.integerValue {
                priority = try Self.priority(String(number))
            } else if let name = value.stringValue {
                priority = try Self.priority(name)
            } else {
                throw .badRequest("\"priority\" must be 1 to 5, not \(value.typeName)")
            }
        } else if let name = parameters.value(headers: Self.priorityHeaders, query: Self.priorityQuery) {
            priority = try Self.priority(name)
        } else {
            priority = 3
        }
        // Every priority given is checked, the ones a header or the object outranks too.
        for name in Self.priorityHeaders { if let text = parameters.headers[name] { _ = try Self.priority(text) } }
        for key in Self.priorityQuery { if let text = parameters.query[key] { _ = try Self.priority(text) } }

        if let value = json["tags"], value != .null {
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw .badRequest("\"tags\" must be an array of strings, not \(value.typeName)")
            }
            tags = items.compactMap(\.stringValue).map(\.trimmingWhitespace).filter { !$0.isEmpty }
        } else if let list = parameters.value(
            headers: ["x-tags", "tags", "x-tag", "tag"], query: ["tags", "tag", "ta"])
        {
            tags = list.split(separator: ",").map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }
        } else {
            tags = []
        }

        click =
            try Self.string(json, "click") ?? parameters.value(headers: ["x-click", "click"], query: ["click", "k"])
        if click == nil, let actions = json["actions"]?.arrayValue {
            // A `view` action is a link: the first one opens when there is no click URL (Uptime Kuma
            // sends its monitor's URL so).
            click =
                actions.lazy.compactMap { action -> String? in
                    guard let object = action.objectValue, object["action"]?.stringValue == "view" else { return nil }
                    return object["url"]?.stringValue
                }.first
        }
        if click?.isEmpty == true { click = nil }
        attach =
            try Self.string(json, "attach")
            ?? parameters.value(headers: ["x-attach", "attach", "a"], query: ["attach", "a"])
        if attach?.isEmpty == true { attach = nil }

        let emoji = tags.compactMap { Self.emoji[$0] }.joined()
        if !emoji.isEmpty {
            if let title {
                self.title = emoji + " " + title
            } else {
                self.message = emoji + " " + self.message
            }
        }
        let words = tags.filter { Self.emoji[$0] == nil }
        if !words.isEmpty { self.message += "\nTags: " + words.joined(separator: ", ") }
    }

    /// The headers that carry a sequence id, in the order they win.
    static let sequenceHeaders = ["x-sequence-id", "sequence-id", "sid"]
    /// The query parameters that carry a sequence id, in the order they win.
    static let sequenceQuery = ["sequence_id", "sid"]

    /// Refuses a sequence id that is not ntfy's: 1 to 64 letters, digits, `-` and `_`.
    /// - Throws: `EndpointError` 400 naming it.
    package static func checkSequenceID(_ text: String) throws(EndpointError) {
        guard NotifierAudience.isValidName(text) else {
            throw .badRequest(
                "sequence_id \"\(AccessLog.maskedPath(text))\" must be 1 to 64 letters, digits, - or _")
        }
    }

    /// The `apns-collapse-id` of the messages of `topic` with `sequenceID`: the SHA-256, in hex (64
    /// characters, APNs' limit), of `ntfy`, the topic and the sequence id, one a line. The topic
    /// is in it so that the same sequence id on two topics names two notifications.
    package static func collapseID(topic: String, sequenceID: String) -> String {
        HexDigest.sha256("ntfy\n" + topic + "\n" + sequenceID)
    }

    /// This message's collapse id: of its sequence id, else of its own id.
    package var collapseID: String { Self.collapseID(topic: topic, sequenceID: sequenceID ?? id) }

    static let priorityHeaders = ["x-priority", "priority"]
    static let priorityQuery = ["priority", "prio", "p"]

    /// The parameters that schedule a delivery, as a JSON member and as headers or query keys.
    static let scheduling: [(String, [String])] = [
        ("delay", ["x-delay", "delay"]), ("at", ["x-at", "at"]), ("in", ["x-in", "in"]),
    ]

    /// ntfy's priority, `1` to `5` or a name: `min`, `low`, `default`, `high`, `max`, `urgent`, in
    /// lowercase or capitalized (`High`, as Shoutrrr sends it).
    static func priority(_ text: String) throws(EndpointError) -> Int {
        let name = text.first.map { $0.lowercased() + text.dropFirst() } ?? text
        switch name {
        case "1", "min": return 1
        case "2", "low": return 2
        case "3", "default": return 3
        case "4", "high": return 4
        case "5", "max", "urgent": return 5
        default:
            throw .badRequest("priority must be 1 to 5, or min, low, default, high, max or urgent, not \"\(text)\"")
        }
    }

    private static func string(_ object: [String: JSONValue], _ key: String) throws(EndpointError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else {
            throw .badRequest("\"\(key)\" must be a string, not \(value.typeName)")
        }
        return text
    }

    /// The interruption level of a priority, as `send-push --urgency` maps its four: 1 and 2
    /// (`low`) passive, 3 the default (left unset: active), 4 (`high`) time-sensitive, 5 critical
    /// when the config allows critical alerts (as ntfy's iOS app plays priority 5), else
    /// time-sensitive.
    package static func interruptionLevel(priority: Int, criticalAlerts: Bool) -> InterruptionLevel? {
        switch priority {
        case ...2: Urgency.low.interruptionLevel
        case 3: nil
        case 4: Urgency.high.interruptionLevel
        default: (criticalAlerts ? Urgency.critical : Urgency.high).interruptionLevel
        }
    }

    /// The alert to send: title and body, the interruption level of the priority (priority 5 a
    /// critical alert when `criticalAlerts`), the click URL as `url` beside `aps`, and the
    /// collapse id (`collapseID`).
    package func specification(criticalAlerts: Bool) -> PushSpecification {
        var spec = PushSpecification()
        spec.collapseID = collapseID
        spec.content.title = title
        spec.content.body = message
        spec.content.interruptionLevel = Self.interruptionLevel(priority: priority, criticalAlerts: criticalAlerts)
        if let click { spec.content.customData[NotificationContent.openURLKey] = .string(click) }
        spec.imageURL = attach
        return spec
    }

    /// ntfy's answer to a publish: the message as ntfy would store it (`id`, `time`, `event`,
    /// `topic`, `message`, `title`, `priority` and `tags` when set, `click`, `sequence_id` when one
    /// was given), with how many devices were sent to, how many APNs took it for, and their ids
    /// (`delivered_to`).
    package func answer(id: String, time: Date, devices: Int, deliveredTo: [String]) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "time": .number(Double(Int(time.timeIntervalSince1970))), "event": "message",
            "topic": .string(topic), "message": .string(message),
            "devices": .number(Double(devices)), "delivered": .number(Double(deliveredTo.count)),
            "delivered_to": .array(deliveredTo.map(JSONValue.string)),
        ]
        if let title { object["title"] = .string(title) }
        if priority != 3 { object["priority"] = .number(Double(priority)) }
        if !tags.isEmpty { object["tags"] = .array(tags.map(JSONValue.string)) }
        if let click { object["click"] = .string(click) }
        if let sequenceID { object["sequence_id"] = .string(sequenceID) }
        return .object(object)
    }

    /// What clearing or deleting a message does to the notification: both take it back.
    package enum Withdrawal: String, Sendable {
        /// `PUT /<topic>/<sequence_id>/clear` (or `/read`): ntfy marks it read and dismisses it.
        case clear = "message_clear"
        /// `DELETE /<topic>/<sequence_id>`: ntfy deletes it.
        case delete = "message_delete"
    }

    /// ntfy's answer to a clear or a delete: the event's message (`id`, `time`, `event`, `topic`,
    /// `sequence_id`), with how many devices the withdrawal was sent to, how many APNs took it
    /// for, and their ids (`delivered_to`).
    package static func withdrawalAnswer(
        _ event: Withdrawal, id: String, time: Date, topic: String, sequenceID: String, devices: Int,
        deliveredTo: [String]
    ) -> JSONValue {
        .object([
            "id": .string(id), "time": .number(Double(Int(time.timeIntervalSince1970))),
            "event": .string(event.rawValue), "topic": .string(topic), "sequence_id": .string(sequenceID),
            "devices": .number(Double(devices)), "delivered": .number(Double(deliveredTo.count)),
            "delivered_to": .array(deliveredTo.map(JSONValue.string)),
        ])
    }

    /// A message id as ntfy makes them: 12 letters and digits.
    package static func makeID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<12).map { _ in alphabet.randomElement()! })
    }

    /// The tags that stand for an emoji, as ntfy shows them before the title: the ones its
    /// documentation's examples and the monitors that publish to it use. Other tags are listed
    /// under the message.
    static let emoji: [String: String] = [
        "+1": "👍", "-1": "👎", "warning": "⚠️", "rotating_light": "🚨", "tada": "🎉", "partying_face": "🥳",
        "white_check_mark": "✅", "heavy_check_mark": "✔️", "x": "❌", "no_entry": "⛔", "skull": "💀",
        "red_circle": "🔴", "green_circle": "🟢", "yellow_circle": "🟡", "large_blue_circle": "🔵",
        "test_tube": "🧪", "loudspeaker": "📢", "bell": "🔔", "fire": "🔥", "rocket": "🚀", "computer": "💻",
        "floppy_disk": "💾", "cd": "💿", "package": "📦", "hourglass": "⌛", "zap": "⚡", "bug": "🐛",
        "lock": "🔒", "key": "🔑", "email": "📧", "calendar": "📆", "house": "🏠", "cloud": "☁️",
    ]
}
