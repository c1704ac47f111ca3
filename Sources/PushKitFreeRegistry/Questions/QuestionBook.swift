#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Every question the endpoint keeps: the pending ones, and the settled ones for `retention` after
/// they settled, so an asker that polls late still reads the answer. The operations here are the
/// only way a question changes state; a store (`QuestionStore`) runs them under its writers' lock.
package struct QuestionBook: Sendable, Equatable {
    /// The questions, by id.
    package private(set) var questions: [String: Question] = [:]
    /// The ids changed or added since the book was read (what a database store writes).
    package private(set) var changed: Set<String> = []
    /// The ids removed since the book was read.
    package private(set) var removed: Set<String> = []

    /// The most questions pending at once: past it, asking is refused until some settle.
    package static let pendingLimit = 1000
    /// How long a settled question is kept.
    package static let retention: TimeInterval = 7 * 24 * 3600

    package init(_ questions: [Question] = []) {
        for question in questions { self.questions[question.id] = question }
    }

    package subscript(id: String) -> Question? { questions[id] }

    /// How many questions are pending at `now`.
    package func pendingCount(at now: Date) -> Int {
        questions.values.reduce(0) { $0 + ($1.state(at: now) == .pending ? 1 : 0) }
    }

    /// The earliest expiry of a question still recorded as pending, if any.
    package var nextExpiry: Date? {
        questions.values.lazy.filter { $0.state == .pending }.map(\.expiresAt).min()
    }

    /// Adds a new question.
    /// - Returns: `false` when `pendingLimit` questions are pending already; nothing is added.
    package mutating func add(_ question: Question, at now: Date) -> Bool {
        guard pendingCount(at: now) < Self.pendingLimit else { return false }
        set(question)
        return true
    }

    /// Records which recipients' pushes were accepted.
    package mutating func markDelivered(_ deviceIDs: Set<String>, question id: String) {
        guard var question = questions[id] else { return }
        for index in question.recipients.indices where deviceIDs.contains(question.recipients[index].deviceID) {
            question.recipients[index].delivered = true
        }
        set(question)
    }

    /// What an answer did.
    package enum AnswerOutcome: Sendable, Equatable {
        /// It settled the question.
        case accepted(Question)
        /// No question has that id.
        case unknownQuestion
        /// The token is not one of the question's.
        case wrongToken
        /// The question was settled before (answered, expired or cancelled).
        case settled(Question)
        /// The answer does not fit the question: its message.
        case unfit(String)
    }

    /// An answer given with `token`: the choice `choice` or the typed `text`. The token is checked
    /// before anything else is said about the question.
    package mutating func answer(
        _ id: String, token: String, choice: String?, text: String?, at now: Date
    ) -> AnswerOutcome {
        guard var question = questions[id] else { return .unknownQuestion }
        guard let recipient = question.recipient(presenting: token) else { return .wrongToken }
        switch question.state(at: now) {
        case .pending: break
        case .expired where question.state == .pending:
            question.state = .expired
            question.settledAt = question.expiresAt
            set(question)
            return .settled(question)
        default: return .settled(question)
        }
        switch (question.form, choice, text) {
        case (.choices(let choices), let choice?, nil):
            guard choices.contains(where: { $0.id == choice }) else {
                return .unfit(
                    "\"\(TerminalText.field(choice))\" is not one of this question's choices ("
                        + choices.map(\.id).joined(separator: ", ") + ")")
            }
        case (.choices, _, _): return .unfit("this question is answered with \"choice\", one of its choices' ids")
        case (.reply, nil, let text?):
            guard !text.trimmingWhitespace.isEmpty else { return .unfit("\"text\" is empty") }
        case (.reply, _, _): return .unfit("this question is answered with \"text\", the typed reply")
        }
        question.state = .answered
        question.answer = Question.Answer(choice: choice, text: text, deviceID: recipient.deviceID, answeredAt: now)
        question.settledAt = now
        set(question)
        return .accepted(question)
    }

    /// What a cancellation did.
    package enum CancelOutcome: Sendable, Equatable {
        /// It cancelled the question.
        case cancelled(Question)
        /// It was cancelled before: nothing changed.
        case alreadyCancelled(Question)
        /// It was answered or had expired: nothing changed.
        case settled(Question)
        case unknownQuestion
    }

    package mutating func cancel(_ id: String, at now: Date) -> CancelOutcome {
        guard var question = questions[id] else { return .unknownQuestion }
        switch question.state(at: now) {
        case .pending:
            question.state = .cancelled
            question.settledAt = now
            set(question)
            return .cancelled(question)
        case .cancelled: return .alreadyCancelled(question)
        case .answered, .expired: return .settled(question)
        }
    }

    /// Records as expired every pending question whose time is up at `now`.
    /// - Returns: the questions this call expired (the caller sends their notices).
    package mutating func expireDue(at now: Date) -> [Question] {
        var expired: [Question] = []
        for var question in questions.values where question.state == .pending && now >= question.expiresAt {
            question.state = .expired
            question.settledAt = question.expiresAt
            set(question)
            expired.append(question)
        }
        return expired.sorted { $0.expiresAt < $1.expiresAt }
    }

    /// Forgets the questions settled more than `retention` before `now`.
    /// - Returns: how many were forgotten.
    @discardableResult
    package mutating func purge(at now: Date, retention: TimeInterval = retention) -> Int {
        let old = questions.values.filter { question in
            guard question.state != .pending, let settled = question.settledAt else { return false }
            return now.timeIntervalSince(settled) > retention
        }
        for question in old {
            questions[question.id] = nil
            changed.remove(question.id)
            removed.insert(question.id)
        }
        return old.count
    }

    /// Whether anything changed since the book was read.
    package var hasChanges: Bool { !changed.isEmpty || !removed.isEmpty }

    private mutating func set(_ question: Question) {
        questions[question.id] = question
        changed.insert(question.id)
        removed.remove(question.id)
    }
}
