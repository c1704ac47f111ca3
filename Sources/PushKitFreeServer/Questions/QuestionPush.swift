#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// The pushes of a question: the question itself, with its buttons and its answer URL, and the
/// notice that replaces it on every device once it is settled.
///
/// The question is an alert with `aps.category` naming its button set and `mutable-content: 1`, and
/// beside `aps` a `pushkit` member: `{"question", "choices" | "reply", "answer_url",
/// "answer_token", "expires_at"}`. Its collapse id is `Question.collapseID`, so the settled notice
/// (same collapse id) takes its place and no stale button is left. With encryption on, all of it
/// travels inside `enc`, as every encrypted send does.
enum QuestionPush {
    /// The categories the app registers at launch (docs/guide.md), by the button set they show; a
    /// question with any other set names `pushkit.q.<digest>`, which the app's notification service
    /// extension registers from the push's `pushkit` member before the notification is shown.
    static let documentedCategories: [(name: String, form: Question.Form)] = [
        ("pushkit.yes-no", .choices([.init(id: "yes", title: "Yes"), .init(id: "no", title: "No")])),
        (
            "pushkit.allow-deny",
            .choices([.init(id: "allow", title: "Allow"), .init(id: "deny", title: "Deny", destructive: true)])
        ),
        ("pushkit.reply", .reply(.init())),
    ]

    /// The category naming `form`'s button set: a documented one, else `pushkit.q.` and the first 16
    /// hex digits of SHA-256 of the set as the push carries it (`choices` or `reply`, keys sorted),
    /// so the same set always has the same name.
    static func category(for form: Question.Form) -> String {
        if let documented = documentedCategories.first(where: { $0.form == form }) { return documented.name }
        let members = form.members
        return "pushkit.q." + HexDigest.sha256(JSONValue.object(members).serializedString()).prefix(16)
    }

    /// The question's push to one device, carrying that device's own answer token.
    static func question(_ question: Question, answerURL: String, token: String) -> PushSpecification {
        var spec = PushSpecification()
        spec.content.title = question.title
        spec.content.body = question.body
        spec.content.category = category(for: question.form)
        spec.content.mutableContent = true
        var member = question.form.members
        member["question"] = .string(question.id)
        member["answer_url"] = .string(answerURL)
        member["answer_token"] = .string(token)
        member["expires_at"] = .string(ISO8601Timestamp.format(question.expiresAt))
        spec.content.customData = ["pushkit": .object(member)]
        spec.collapseID = question.collapseID
        // APNs keeps it for an offline device no longer than the question lasts.
        spec.expiration = Int(question.expiresAt.timeIntervalSince1970.rounded(.up))
        spec.encrypt = question.encrypt
        return spec
    }

    /// The notice that replaces a settled question: "Answered: Deploy? (iPhone)" with the answer,
    /// "Expired: Deploy?" or "Cancelled: Deploy?"; quiet (passive, no sound), no buttons.
    static func settled(_ question: Question) -> PushSpecification {
        var spec = PushSpecification()
        switch question.state {
        case .answered:
            let answer = question.answer
            let device = question.recipients.first { $0.deviceID == answer?.deviceID }
            let who = device?.name ?? answer?.deviceID ?? "another device"
            spec.content.title = "Answered: \(question.title) (\(who))"
            if let choice = answer?.choice, case .choices(let choices) = question.form {
                spec.content.body = choices.first { $0.id == choice }?.title ?? choice
            } else {
                spec.content.body = answer?.text
            }
        case .expired: spec.content.title = "Expired: \(question.title)"
        case .cancelled: spec.content.title = "Cancelled: \(question.title)"
        case .pending: spec.content.title = question.title
        }
        spec.content.interruptionLevel = .passive
        spec.sound = "none"
        spec.content.customData = [
            "pushkit": ["question": .string(question.id), "state": .string(question.state.rawValue)]
        ]
        spec.collapseID = question.collapseID
        spec.encrypt = question.encrypt
        return spec
    }
}
