#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Judges the body of `messages:send` by the rules Google documents for FCM HTTP v1: the request
/// holds `message` (and optionally `validate_only`); the message names exactly one target (`token`,
/// `topic` or `condition`) and only known members; `data` maps to strings and avoids reserved keys;
/// `notification` holds only `title`, `body` and `image`; `apns.headers` are strings; `android`'s
/// `priority` and `ttl` are well formed; the payload is at most 4,096 bytes.
///
/// A bad message is answered 400 `INVALID_ARGUMENT` with a `google.rpc.BadRequest` detail; a
/// registration token of the wrong shape with an FcmError `INVALID_ARGUMENT` detail (the token is
/// dead, not the message).
package enum FCMMessageJudge {
    /// The largest payload, in bytes: the message without its target, serialized compactly.
    package static let payloadLimit = 4096
    /// The members a `message` may have.
    package static let messageMembers: Set<String> = [
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition",
    ]
    /// The members a `notification` may have.
    package static let notificationMembers: Set<String> = ["title", "body", "image"]
    /// Data keys the FCM service keeps for itself.
    package static let reservedDataKeys: Set<String> = ["from", "notification", "message_type"]
    /// Data key prefixes the FCM service keeps for itself.
    package static let reservedDataPrefixes = ["google.", "gcm."]
    /// The longest Android time to live: four weeks, in seconds.
    package static let maximumTTL = 2_419_200.0

    /// Whom a message goes to.
    package enum Target: Sendable, Equatable {
        /// A registration token.
        case token(String)
        /// A topic name (without `/topics/`).
        case topic(String)
        /// A condition over topics.
        case condition(String)

        /// `token`, `topic` or `condition`.
        package var kind: String {
            switch self {
            case .token: "token"
            case .topic: "topic"
            case .condition: "condition"
            }
        }

        /// The token, topic or condition.
        package var value: String {
            switch self {
            case .token(let value), .topic(let value), .condition(let value): value
            }
        }
    }

    /// A request that passed.
    package struct Accepted: Sendable, Equatable {
        /// Whom it goes to.
        package var target: Target
        /// `validate_only`.
        package var validateOnly: Bool
        /// The `message` object, compact JSON.
        package var message: [UInt8]
        /// The payload size measured against `payloadLimit`.
        package var payloadBytes: Int
    }

    /// Judges a `messages:send` body.
    package static func judge(_ body: [UInt8]) -> Result<Accepted, FCMErrorAnswer> {
        do {
            return .success(try accept(body))
        } catch {
            return .failure(error)
        }
    }

    private static func accept(_ body: [UInt8]) throws(FCMErrorAnswer) -> Accepted {
        guard let request = try? JSONValue.parse(Data(body)) else {
            throw .badMessage("Invalid JSON payload received. Unexpected token.", field: nil)
        }
        guard let top = request.objectValue else {
            throw .badMessage(
                "Invalid JSON payload received. Expected an object, got \(request.typeName).", field: nil)
        }
        for name in top.keys.sorted() where name != "message" && name != "validate_only" {
            throw unknownName(name, in: nil)
        }
        var validateOnly = false
        if let value = top["validate_only"] {
            guard let flag = value.boolValue else {
                throw invalidValue("validate_only", type: "TYPE_BOOL", value)
            }
            validateOnly = flag
        }
        guard let messageValue = top["message"] else {
            throw .badMessage("Request contains an invalid argument: the message is not set.", field: "message")
        }
        guard var message = messageValue.objectValue else {
            throw invalidValue("message", type: "type.googleapis.com/google.firebase.fcm.v1.Message", messageValue)
        }
        for name in message.keys.sorted() where !messageMembers.contains(name) {
            throw unknownName(name, in: "message")
        }
        let target = try target(of: message)
        try checkData(message["data"])
        try checkNotification(message["notification"])
        try checkAPNs(message["apns"])
        try checkAndroid(message["android"])
        for name in ["webpush", "fcm_options"] {
            if let value = message[name], value.objectValue == nil {
                throw invalidValue("message.\(name)", type: "TYPE_MESSAGE", value)
            }
        }
        let compact = Array(JSONValue.object(message).serialized())
        for name in ["token", "topic", "condition", "name"] { message[name] = nil }
        let payloadBytes = JSONValue.object(message).serialized().count
        guard payloadBytes <= payloadLimit else {
            throw .badMessage(
                "Message is too big: the payload is \(payloadBytes) bytes, the limit is \(payloadLimit).",
                field: "message")
        }
        return Accepted(target: target, validateOnly: validateOnly, message: compact, payloadBytes: payloadBytes)
    }

    private static func target(of message: [String: JSONValue]) throws(FCMErrorAnswer) -> Target {
        let present = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard let first = present.first else {
            throw .badMessage("Recipient of the message is not set.", field: "message")
        }
        if present.count > 1 {
            throw .badMessage(
                "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(present[1])'",
                field: "message.\(present[1])")
        }
        let value = message[first]!
        guard let text = value.stringValue else {
            throw invalidValue("message.\(first)", type: "TYPE_STRING", value)
        }
        switch first {
        case "token":
            guard isRegistrationTokenShaped(text) else {
                throw FCMErrorAnswer(
                    code: 400, status: "INVALID_ARGUMENT",
                    message: "The registration token is not a valid FCM registration token",
                    detail: .fcmError("INVALID_ARGUMENT"))
            }
            return .token(text)
        case "topic":
            let name = text.hasPrefix("/topics/") ? String(text.dropFirst("/topics/".count)) : text
            guard isTopicName(name) else {
                throw .badMessage("Invalid topic name: \(text)", field: "message.topic")
            }
            return .topic(name)
        default:
            guard !text.allSatisfy(\.isWhitespace) else {
                throw .badMessage("Invalid condition expression provided.", field: "message.condition")
            }
            return .condition(text)
        }
    }

    private static func checkData(_ value: JSONValue?) throws(FCMErrorAnswer) {
        guard let value else { return }
        guard let data = value.objectValue else {
            throw invalidValue("message.data", type: "TYPE_MESSAGE", value)
        }
        for key in data.keys.sorted() {
            let entry = data[key]!
            guard entry.stringValue != nil else {
                throw invalidValue("message.data[\(jsonQuoted(key))]", type: "TYPE_STRING", entry)
            }
            if reservedDataKeys.contains(key) || reservedDataPrefixes.contains(where: { key.hasPrefix($0) }) {
                throw .badMessage("Invalid data payload key: \(key)", field: "message.data")
            }
        }
    }

    private static func checkNotification(_ value: JSONValue?) throws(FCMErrorAnswer) {
        guard let value else { return }
        guard let notification = value.objectValue else {
            throw invalidValue("message.notification", type: "TYPE_MESSAGE", value)
        }
        for name in notification.keys.sorted() {
            guard notificationMembers.contains(name) else { throw unknownName(name, in: "message.notification") }
            let member = notification[name]!
            guard member.stringValue != nil else {
                throw invalidValue("message.notification.\(name)", type: "TYPE_STRING", member)
            }
        }
    }

    private static func checkAPNs(_ value: JSONValue?) throws(FCMErrorAnswer) {
        guard let value else { return }
        guard let apns = value.objectValue else {
            throw invalidValue("message.apns", type: "TYPE_MESSAGE", value)
        }
        if let headersValue = apns["headers"] {
            guard let headers = headersValue.objectValue else {
                throw invalidValue("message.apns.headers", type: "TYPE_MESSAGE", headersValue)
            }
            for name in headers.keys.sorted() {
                let header = headers[name]!
                guard header.stringValue != nil else {
                    throw invalidValue("message.apns.headers[\(jsonQuoted(name))]", type: "TYPE_STRING", header)
                }
            }
        }
        if let payload = apns["payload"], payload.objectValue == nil {
            throw invalidValue("message.apns.payload", type: "type.googleapis.com/google.protobuf.Struct", payload)
        }
    }

    private static func checkAndroid(_ value: JSONValue?) throws(FCMErrorAnswer) {
        guard let value else { return }
        guard let android = value.objectValue else {
            throw invalidValue("message.android", type: "TYPE_MESSAGE", value)
        }
        if let priority = android["priority"] {
            guard let text = priority.stringValue, text == "NORMAL" || text == "HIGH" else {
                throw invalidValue(
                    "message.android.priority",
                    type: "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority",
                    priority)
            }
        }
        if let ttl = android["ttl"] {
            guard let text = ttl.stringValue, let seconds = durationSeconds(text) else {
                throw invalidValue("message.android.ttl", type: "type.googleapis.com/google.protobuf.Duration", ttl)
            }
            guard seconds <= maximumTTL else {
                throw .badMessage(
                    "The maximum time to live supported is 4 weeks (2419200s), not \(text).",
                    field: "message.android.ttl")
            }
        }
        if let data = android["data"] {
            guard let entries = data.objectValue, entries.values.allSatisfy({ $0.stringValue != nil }) else {
                throw invalidValue("message.android.data", type: "TYPE_STRING", data)
            }
        }
    }

    /// Whether `text` has the shape of an FCM registration token: 100 to 4,096 characters of the
    /// URL-safe base64 alphabet, with a colon between the instance id and the rest.
    package static func isRegistrationTokenShaped(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (100...4096).contains(bytes.count), bytes.contains(UInt8(ascii: ":")),
            bytes.first != UInt8(ascii: ":"), bytes.last != UInt8(ascii: ":")
        else { return false }
        return bytes.allSatisfy { isBase64URL($0) || $0 == UInt8(ascii: ":") }
    }

    /// Whether `name` is a topic name Google accepts: `[a-zA-Z0-9-_.~%]+`.
    package static func isTopicName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy {
                isBase64URL($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "%")
            }
    }

    /// Seconds of a protobuf JSON `Duration` (`"3.5s"`: digits, up to nine decimals, then `s`).
    package static func durationSeconds(_ text: String) -> Double? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigit) else { return nil }
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
        }
        return Double(number)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    private static func unknownName(_ name: String, in parent: String?) -> FCMErrorAnswer {
        let quoted = parent.map { "\(jsonQuoted(name)) at '\($0)'" } ?? jsonQuoted(name)
        return .badMessage(
            "Invalid JSON payload received. Unknown name \(quoted): Cannot find field.",
            field: parent.map { "\($0).\(name)" } ?? name)
    }

    private static func invalidValue(_ field: String, type: String, _ value: JSONValue) -> FCMErrorAnswer {
        .badMessage(
            "Invalid value at '\(field)' (\(type)), \(value.serializedString())", field: field)
    }

    private static func jsonQuoted(_ text: String) -> String {
        JSONValue.string(text).serializedString()
    }
}

extension Character {
    /// Whether this is one of `0`–`9`.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
