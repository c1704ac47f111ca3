import PushKitFreeCore
import PushKitFreeRegistry

/// The body of `POST /v1/questions` (and the arguments of the agent tool `ask`), checked:
/// `{"title", "body"?, "choices": [{"id", "title", "destructive"?, "authentication_required"?}]
/// (1 to 4) or "reply": {"placeholder"?, "button"?}, "device"? | "group"?, "timeout"?, "urgency"?,
/// "encrypt"?}`. Unknown members are refused, so a misspelt one never goes unnoticed.
package struct QuestionRequest: Sendable, Equatable {
    package var title: String
    package var body: String?
    package var form: Question.Form
    package var device: String?
    package var group: String?
    /// Seconds until the question expires.
    package var timeout: Int
    package var urgency: Urgency?
    package var encrypt: Bool?

    package static let members: Set<String> = [
        "title", "body", "choices", "reply", "device", "group", "timeout", "urgency", "encrypt",
    ]
    package static let defaultTimeout = 300
    package static let timeoutLimit = 86_400
    package static let choiceLimit = 4
    /// The longest choice title, placeholder or button title, in characters.
    package static let labelLimit = 64

    /// - Throws: `EndpointError` 400 naming the member at fault.
    package init(_ json: JSONValue) throws(EndpointError) {
        guard let object = json.objectValue else {
            throw .badRequest("expected a JSON object, not \(json.typeName)")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.members.contains($0) }) {
            throw .badRequest(
                "unknown member \"\(TerminalText.field(unknown))\"; a question takes "
                    + Self.members.sorted().joined(separator: ", "))
        }
        let fields = RequestBodyFields(object)
        do throws(RegistrationBodyError) {
            title = try fields.string("title") ?? ""
            body = try fields.string("body").flatMap { $0.isEmpty ? nil : $0 }
            device = try fields.string("device")
            group = try fields.string("group")
            timeout = try fields.integer("timeout") ?? Self.defaultTimeout
            encrypt = try fields.bool("encrypt")
            urgency = try fields.urgency()
        } catch {
            throw EndpointError(error)
        }
        if title.trimmingWhitespace.isEmpty { throw .badRequest("a question needs a \"title\"") }
        if device != nil && group != nil { throw .badRequest("give \"device\" or \"group\", not both") }
        if !(1...Self.timeoutLimit).contains(timeout) {
            throw .badRequest("\"timeout\" must be 1 to \(Self.timeoutLimit) seconds, not \(timeout)")
        }
        switch (object["choices"], object["reply"]) {
        case (let choices?, nil): form = .choices(try Self.choices(choices))
        case (nil, let reply?): form = .reply(try Self.reply(reply))
        case (nil, nil):
            throw .badRequest("a question needs \"choices\" (1 to 4 buttons) or \"reply\" (a typed answer)")
        case (.some, .some): throw .badRequest("give \"choices\" or \"reply\", not both")
        }
    }

    private static func choices(_ json: JSONValue) throws(EndpointError) -> [Question.Choice] {
        guard let items = json.arrayValue, (1...choiceLimit).contains(items.count) else {
            throw .badRequest("\"choices\" must be an array of 1 to \(choiceLimit) choices")
        }
        var choices: [Question.Choice] = []
        for (index, item) in items.enumerated() {
            let name = "\"choices\"[\(index)]"
            guard let object = item.objectValue else { throw .badRequest("\(name) must be an object") }
            let allowed: Set<String> = ["id", "title", "destructive", "authentication_required"]
            if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw .badRequest(
                    "\(name) has an unknown member \"\(TerminalText.field(unknown))\"; a choice takes "
                        + allowed.sorted().joined(separator: ", "))
            }
            guard let id = object["id"]?.stringValue, isChoiceID(id) else {
                throw .badRequest("\(name).id must be 1 to 64 letters, digits, _ . or -")
            }
            guard let title = object["title"]?.stringValue, isLabel(title) else {
                throw .badRequest("\(name).title must be a string of 1 to \(labelLimit) characters")
            }
            if choices.contains(where: { $0.id == id }) {
                throw .badRequest("\(name).id \"\(id)\" is given twice; each choice needs its own id")
            }
            var choice = Question.Choice(id: id, title: title)
            for (key, flag) in [
                ("destructive", \Question.Choice.destructive),
                ("authentication_required", \Question.Choice.authenticationRequired),
            ] {
                guard let value = object[key] else { continue }
                guard let bool = value.boolValue else { throw .badRequest("\(name).\(key) must be true or false") }
                choice[keyPath: flag] = bool
            }
            choices.append(choice)
        }
        return choices
    }

    private static func reply(_ json: JSONValue) throws(EndpointError) -> Question.Reply {
        guard let object = json.objectValue else {
            throw .badRequest("\"reply\" must be an object: {\"placeholder\"?, \"button\"?}")
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "placeholder" && $0 != "button" }) {
            throw .badRequest(
                "\"reply\" has an unknown member \"\(TerminalText.field(unknown))\"; it takes placeholder, button")
        }
        var reply = Question.Reply()
        for (key, path) in [("placeholder", \Question.Reply.placeholder), ("button", \Question.Reply.button)] {
            guard let value = object[key] else { continue }
            guard let text = value.stringValue, isLabel(text) else {
                throw .badRequest("\"reply\".\(key) must be a string of 1 to \(labelLimit) characters")
            }
            reply[keyPath: path] = text
        }
        return reply
    }

    static func isChoiceID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    static func isLabel(_ text: String) -> Bool {
        !text.trimmingWhitespace.isEmpty && text.unicodeScalars.count <= labelLimit
            && !HeaderValue.hasControlCharacter(text)
    }
}
