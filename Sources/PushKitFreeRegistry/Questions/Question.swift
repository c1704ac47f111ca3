#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A question an agent or a script asked the phone (`POST /v1/questions`), and what became of it:
/// pending until a device answers, the asker cancels, or it expires.
///
/// Fail closed: nothing turns a question that was not answered into an answer. A pending question
/// whose time is up reads as expired (`state(at:)`) even before the server has recorded it so.
package struct Question: Sendable, Equatable {
    /// Where a question is in its life; every state but `pending` is final.
    package enum State: String, Sendable, CaseIterable {
        case pending, answered, expired, cancelled
    }

    /// A button the phone shows; tapping it answers with `id`.
    package struct Choice: Sendable, Equatable {
        /// What the answer carries (1 to 64 of `A-Z a-z 0-9 _ . -`); the notification action's identifier.
        package var id: String
        /// The button's title.
        package var title: String
        /// Shown in red (`UNNotificationActionOptions.destructive`).
        package var destructive = false
        /// Needs the device unlocked (`.authenticationRequired`).
        package var authenticationRequired = false

        package init(id: String, title: String, destructive: Bool = false, authenticationRequired: Bool = false) {
            self.id = id
            self.title = title
            self.destructive = destructive
            self.authenticationRequired = authenticationRequired
        }
    }

    /// A typed answer: the text field's placeholder and its button's title.
    package struct Reply: Sendable, Equatable {
        package var placeholder: String?
        package var button: String?

        package init(placeholder: String? = nil, button: String? = nil) {
            self.placeholder = placeholder
            self.button = button
        }
    }

    /// How the phone answers: one of the buttons, or typed text.
    package enum Form: Sendable, Equatable {
        case choices([Choice])
        case reply(Reply)
    }

    /// A device the question was sent to, with the digest of its own answer token.
    package struct Recipient: Sendable, Equatable {
        package var deviceID: String
        /// The device's name when it was asked, for the settled notice ("Answered: … (iPhone)").
        package var name: String?
        /// SHA-256 of the answer token sent to this device, as hex: the token itself is never kept.
        package var tokenDigest: String
        /// Whether APNs (or FCM) accepted the question's push for it.
        package var delivered: Bool

        package init(deviceID: String, name: String?, tokenDigest: String, delivered: Bool = false) {
            self.deviceID = deviceID
            self.name = name
            self.tokenDigest = tokenDigest
            self.delivered = delivered
        }
    }

    /// The answer that settled the question.
    package struct Answer: Sendable, Equatable {
        /// A choice's id, for a question with buttons.
        package var choice: String?
        /// The typed text, for a reply question.
        package var text: String?
        /// The device whose token answered.
        package var deviceID: String
        package var answeredAt: Date

        package init(choice: String? = nil, text: String? = nil, deviceID: String, answeredAt: Date) {
            self.choice = choice
            self.text = text
            self.deviceID = deviceID
            self.answeredAt = answeredAt
        }
    }

    /// 32 lowercase hex digits, random.
    package var id: String
    package var title: String
    package var body: String?
    package var form: Form
    /// `low`, `normal` or `high`, as the asker gave it.
    package var urgency: Urgency?
    /// Whether the push is sealed with the devices' content keys (`nil`: the config's `encrypt`).
    package var encrypt: Bool?
    package var createdAt: Date
    package var expiresAt: Date
    /// The state as recorded; read `state(at:)` for the state at a time.
    package var state: State
    package var recipients: [Recipient]
    package var answer: Answer?
    /// When it was answered, cancelled or expired.
    package var settledAt: Date?

    package init(
        id: String, title: String, body: String?, form: Form, urgency: Urgency?, encrypt: Bool?, createdAt: Date,
        expiresAt: Date, recipients: [Recipient]
    ) {
        self.id = id
        self.title = title
        self.body = body
        self.form = form
        self.urgency = urgency
        self.encrypt = encrypt
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        state = .pending
        self.recipients = recipients
    }

    /// The state at `now`: a pending question whose time is up is expired.
    package func state(at now: Date) -> State {
        state == .pending && now >= expiresAt ? .expired : state
    }

    /// The collapse id of the question's push and of the notice that replaces it once settled.
    package var collapseID: String { "pushkit-q-\(id)" }

    /// The recipient whose answer token is `token`, if any.
    package func recipient(presenting token: String) -> Recipient? {
        let digest = HexDigest.sha256(token)
        return recipients.first { $0.tokenDigest == digest }
    }
}
