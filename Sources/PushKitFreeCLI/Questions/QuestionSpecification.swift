import PushKitFreeCore

/// What a question asks, checked as `register-apns serve` checks `POST /v1/questions` (so a
/// mistake is a usage error before anything is sent), and its body for that route.
package struct QuestionSpecification: Sendable, Equatable {
    /// How the phone answers: one of up to four buttons, or a typed reply.
    package enum Answers: Sendable, Equatable {
        /// Buttons; the answer is a choice's id.
        case choices([QuestionChoice])
        /// A text field; the answer is the text. Both members are optional.
        case reply(placeholder: String?, button: String?)
    }

    /// Who is asked: every device, one device, or a group's devices.
    package enum Audience: Sendable, Equatable {
        case everyDevice
        case device(String)
        case group(String)
    }

    /// The alert's title (the question), not empty.
    package var title: String
    /// The alert's body.
    package var body: String?
    /// The buttons or the reply field.
    package var answers: Answers
    /// Whose devices are asked.
    package var audience: Audience = .everyDevice
    /// Seconds until the question expires unanswered.
    package var timeout: Int = QuestionSpecification.defaultTimeout
    /// The notification's urgency; serve's default when `nil`.
    package var urgency: Urgency?
    /// Whether the push is sealed; the config's `encrypt` (on serve) when `nil`.
    package var encrypt: Bool?

    /// Seconds a question waits by default: five minutes.
    package static let defaultTimeout = 300
    /// The longest a question may wait: a day.
    package static let longestTimeout = 86_400
    /// The most buttons a notification shows.
    package static let mostChoices = 4

    /// A question with `title` answered by `answers`; the rest at their defaults.
    package init(title: String, body: String? = nil, answers: Answers) {
        self.title = title
        self.body = body
        self.answers = answers
    }

    /// The first thing wrong with the question, as a sentence naming the setting; `nil` when
    /// serve would take it. The setting is named by `name` (a flag for `ask-push`).
    package func problem(naming name: (Setting) -> String) -> String? {
        if title.trimmingWhitespace.isEmpty { return "\(name(.title)) must not be empty" }
        if !(1...Self.longestTimeout).contains(timeout) {
            return "\(name(.timeout)) must be 1 to \(Self.longestTimeout) seconds, not \(timeout)"
        }
        if case .choices(let choices) = answers {
            if choices.isEmpty || choices.count > Self.mostChoices {
                return "give 1 to \(Self.mostChoices) \(name(.choice)) (given \(choices.count)), or \(name(.reply))"
            }
            var seen: Set<String> = []
            for choice in choices {
                guard QuestionChoice.isValidID(choice.id) else {
                    return "\(name(.choice)) \"\(TerminalText.field(choice.id))=\(TerminalText.field(choice.title))\": "
                        + "the id must be 1 to 64 characters of A-Z a-z 0-9 _ . -"
                }
                guard seen.insert(choice.id).inserted else {
                    return "\(name(.choice)) id \"\(choice.id)\" is given twice"
                }
                guard !choice.title.trimmingWhitespace.isEmpty, choice.title.count <= QuestionChoice.longest else {
                    return "\(name(.choice)) \(choice.id): the title must be 1 to 64 characters"
                }
            }
        }
        if case .device(let id) = audience, id.isEmpty { return "\(name(.device)) must not be empty" }
        if case .group(let group) = audience, group.isEmpty { return "\(name(.group)) must not be empty" }
        return nil
    }

    /// The settings a problem can name.
    package enum Setting: Sendable {
        case title, timeout, choice, reply, device, group
    }

    /// The body of `POST /v1/questions`.
    package var requestBody: JSONValue {
        var body: [String: JSONValue] = ["title": .string(title), "timeout": .number(Double(timeout))]
        if let text = self.body { body["body"] = .string(text) }
        switch answers {
        case .choices(let choices):
            body["choices"] = .array(
                choices.map { choice in
                    var object: [String: JSONValue] = ["id": .string(choice.id), "title": .string(choice.title)]
                    if choice.destructive { object["destructive"] = true }
                    if choice.authenticationRequired { object["authentication_required"] = true }
                    return .object(object)
                })
        case .reply(let placeholder, let button):
            var reply: [String: JSONValue] = [:]
            if let placeholder { reply["placeholder"] = .string(placeholder) }
            if let button { reply["button"] = .string(button) }
            body["reply"] = .object(reply)
        }
        switch audience {
        case .everyDevice: break
        case .device(let id): body["device"] = .string(id)
        case .group(let group): body["group"] = .string(group)
        }
        if let urgency { body["urgency"] = .string(urgency.rawValue) }
        if let encrypt { body["encrypt"] = .bool(encrypt) }
        return .object(body)
    }
}
