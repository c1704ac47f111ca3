#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A question's status as `GET /v1/questions/{id}` answers it: read by the tools that wait for an
/// answer (`ask-push`, the agent tools). Anything but `answered` with an answer is not a "yes".
package struct QuestionStatus: Sendable, Equatable {
    /// Where a question is.
    package enum State: String, Sendable, CaseIterable {
        /// Asked and not answered yet; waiting goes on.
        case pending
        /// Answered: `answer` says how.
        case answered
        /// Nobody answered before it expired.
        case expired
        /// Withdrawn before anyone answered.
        case cancelled
    }

    /// What the phone answered.
    package enum Answer: Sendable, Equatable {
        /// The id of the button tapped.
        case choice(String)
        /// The text typed.
        case text(String)
    }

    /// The question's id.
    package let id: String
    /// Where it is.
    package let state: State
    /// The answer, when `state` is `answered`.
    package let answer: Answer?
    /// The device that answered, when one did.
    package let answeringDevice: String?
    /// When it expires (or expired); `nil` when the status named no readable time.
    package let expiresAt: Date?

    /// The status in `object`.
    /// - Throws: `QuestionStatusError` when the state is missing or unknown, or an answered
    ///   question names no choice or text (which must never read as an answer).
    package init(_ object: [String: JSONValue]) throws(QuestionStatusError) {
        guard let text = object["state"]?.stringValue, let state = State(rawValue: text) else {
            throw QuestionStatusError(
                "the status names no known state (\(object["state"]?.serializedString() ?? "none"))")
        }
        id = object["id"]?.stringValue ?? ""
        self.state = state
        expiresAt = object["expires_at"]?.stringValue.flatMap(ISO8601Timestamp.parse)
        let answer = object["answer"]?.objectValue
        answeringDevice = answer?["device"]?.stringValue
        if let choice = answer?["choice"]?.stringValue {
            self.answer = .choice(choice)
        } else if let typed = answer?["text"]?.stringValue {
            self.answer = .text(typed)
        } else {
            self.answer = nil
        }
        if state == .answered, self.answer == nil {
            throw QuestionStatusError("the question is answered but the status names no choice or text")
        }
    }
}

/// A status that cannot be read as one (exit 65).
package struct QuestionStatusError: PushKitError, Equatable {
    /// What is wrong with it.
    package let description: String
    /// Always 65.
    package var exitStatus: ExitStatus { .dataError }

    /// An error saying `description`.
    package init(_ description: String) {
        self.description = description
    }
}
