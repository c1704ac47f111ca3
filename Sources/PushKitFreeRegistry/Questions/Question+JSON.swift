#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A question as its store keeps it: one JSON object (a member of `questions.json`'s `questions`
/// array, or a row's `record` in PostgreSQL).
///
/// ```json
/// {"id": "…", "title": "Deploy?", "body": "…", "choices": [{"id": "deploy", "title": "Deploy",
///  "destructive": true}], "urgency": "high", "encrypt": true, "created_at": "…", "expires_at": "…",
///  "state": "answered", "recipients": [{"device": "ada-iphone", "name": "iPhone",
///  "token_sha256": "…", "delivered": true}], "answer": {"choice": "deploy", "device": "ada-iphone",
///  "answered_at": "…"}, "settled_at": "…"}
/// ```
extension Question {
    /// The record's JSON object.
    package var record: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "title": .string(title), "state": .string(state.rawValue),
            "created_at": Self.time(createdAt), "expires_at": Self.time(expiresAt),
            "recipients": .array(
                recipients.map { recipient in
                    var member: [String: JSONValue] = [
                        "device": .string(recipient.deviceID), "token_sha256": .string(recipient.tokenDigest),
                        "delivered": .bool(recipient.delivered),
                    ]
                    if let name = recipient.name { member["name"] = .string(name) }
                    return .object(member)
                }),
        ]
        if let body { object["body"] = .string(body) }
        for (key, value) in form.members { object[key] = value }
        if let urgency { object["urgency"] = .string(urgency.rawValue) }
        if let encrypt { object["encrypt"] = .bool(encrypt) }
        if let answer { object["answer"] = answer.json }
        if let settledAt { object["settled_at"] = Self.time(settledAt) }
        return .object(object)
    }
}

extension Question.Form {
    /// `choices` or `reply`, as the request gave them, the record keeps them and the push carries them.
    package var members: [String: JSONValue] {
        switch self {
        case .choices(let choices): ["choices": .array(choices.map(\.json))]
        case .reply(let reply): ["reply": reply.json]
        }
    }
}

extension Question {
    /// Reads a record written by `record`.
    /// - Throws: `RegistryError.corruptStateFile` naming what is wrong, with `path`.
    package init(record: JSONValue, path: String) throws(RegistryError) {
        func fail(_ detail: String) -> RegistryError { .corruptStateFile(path: path, detail: "a question \(detail)") }
        guard let object = record.objectValue else { throw fail("is not a JSON object") }
        func text(_ key: String) throws(RegistryError) -> String {
            guard let value = object[key]?.stringValue else { throw fail("has no \"\(key)\" string") }
            return value
        }
        func time(_ key: String) throws(RegistryError) -> Date {
            guard let date = ISO8601Timestamp.parse(try text(key)) else { throw fail("has a bad \"\(key)\"") }
            return date
        }
        let form: Form
        if let choices = object["choices"]?.arrayValue {
            var parsed: [Choice] = []
            for choice in choices {
                guard let id = choice["id"]?.stringValue, let title = choice["title"]?.stringValue else {
                    throw fail("has a choice without an id and a title")
                }
                parsed.append(
                    Choice(
                        id: id, title: title, destructive: choice["destructive"]?.boolValue ?? false,
                        authenticationRequired: choice["authentication_required"]?.boolValue ?? false))
            }
            form = .choices(parsed)
        } else if let reply = object["reply"]?.objectValue {
            form = .reply(Reply(placeholder: reply["placeholder"]?.stringValue, button: reply["button"]?.stringValue))
        } else {
            throw fail("has neither \"choices\" nor \"reply\"")
        }
        var recipients: [Recipient] = []
        for member in object["recipients"]?.arrayValue ?? [] {
            guard let device = member["device"]?.stringValue, let digest = member["token_sha256"]?.stringValue else {
                throw fail("has a recipient without a device and a token digest")
            }
            recipients.append(
                Recipient(
                    deviceID: device, name: member["name"]?.stringValue, tokenDigest: digest,
                    delivered: member["delivered"]?.boolValue ?? false))
        }
        self.init(
            id: try text("id"), title: try text("title"), body: object["body"]?.stringValue, form: form,
            urgency: object["urgency"]?.stringValue.flatMap(Urgency.init(rawValue:)),
            encrypt: object["encrypt"]?.boolValue, createdAt: try time("created_at"),
            expiresAt: try time("expires_at"), recipients: recipients)
        guard let state = State(rawValue: try text("state")) else { throw fail("has an unknown \"state\"") }
        self.state = state
        if let answer = object["answer"]?.objectValue {
            guard let device = answer["device"]?.stringValue,
                let answeredAt = answer["answered_at"]?.stringValue.flatMap(ISO8601Timestamp.parse)
            else { throw fail("has an answer without a device and a time") }
            self.answer = Answer(
                choice: answer["choice"]?.stringValue, text: answer["text"]?.stringValue, deviceID: device,
                answeredAt: answeredAt)
        }
        settledAt = object["settled_at"]?.stringValue.flatMap(ISO8601Timestamp.parse)
    }

    static func time(_ date: Date) -> JSONValue { .string(ISO8601Timestamp.format(date)) }
}

extension Question.Choice {
    /// `{"id", "title", "destructive"?, "authentication_required"?}`, the flags only when set.
    package var json: JSONValue {
        var object: [String: JSONValue] = ["id": .string(id), "title": .string(title)]
        if destructive { object["destructive"] = true }
        if authenticationRequired { object["authentication_required"] = true }
        return .object(object)
    }
}

extension Question.Reply {
    /// `{"placeholder"?, "button"?}`.
    package var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let placeholder { object["placeholder"] = .string(placeholder) }
        if let button { object["button"] = .string(button) }
        return .object(object)
    }
}

extension Question.Answer {
    /// `{"choice"}` or `{"text"}`, with `"device"` and `"answered_at"`: what `GET /v1/questions/{id}` shows.
    package var json: JSONValue {
        var object: [String: JSONValue] = [
            "device": .string(deviceID), "answered_at": .string(ISO8601Timestamp.format(answeredAt)),
        ]
        if let choice { object["choice"] = .string(choice) }
        if let text { object["text"] = .string(text) }
        return .object(object)
    }
}
