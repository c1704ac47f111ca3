import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("questions: the book and its file")
struct QuestionBookTests {
    let asked = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = "right-token"

    func question(_ id: String = "q1", timeout: TimeInterval = 300, form: Question.Form? = nil) -> Question {
        Question(
            id: id, title: "Deploy?", body: "main", form: form ?? .choices([.init(id: "yes", title: "Yes")]),
            urgency: .high, encrypt: true, createdAt: asked, expiresAt: asked + timeout,
            recipients: [
                .init(deviceID: "phone", name: "iPhone", tokenDigest: HexDigest.sha256(Self.token), delivered: true),
                .init(deviceID: "tablet", name: nil, tokenDigest: HexDigest.sha256("other-token")),
            ])
    }

    @Test("the token is checked first: a wrong one learns nothing of the question's state")
    func tokenFirst() {
        var book = QuestionBook([question()])
        #expect(book.answer("q1", token: "forged", choice: "yes", text: nil, at: asked + 1_000) == .wrongToken)
        #expect(book.answer("nope", token: Self.token, choice: "yes", text: nil, at: asked) == .unknownQuestion)
        #expect(!book.hasChanges)
    }

    @Test("the first fitting answer wins, with the device whose token answered; later ones are refused")
    func firstAnswerWins() throws {
        var book = QuestionBook([question()])
        guard case .unfit(let message) = book.answer("q1", token: Self.token, choice: "no", text: nil, at: asked)
        else {
            Issue.record("an unknown choice must be unfit")
            return
        }
        #expect(message.contains("yes"))
        guard case .unfit = book.answer("q1", token: Self.token, choice: nil, text: "yes", at: asked) else {
            Issue.record("text for a choice question must be unfit")
            return
        }
        guard
            case .accepted(let answered) = book.answer("q1", token: Self.token, choice: "yes", text: nil, at: asked + 5)
        else {
            Issue.record("the answer must be accepted")
            return
        }
        #expect(answered.state == .answered && answered.settledAt == asked + 5)
        #expect(answered.answer == .init(choice: "yes", deviceID: "phone", answeredAt: asked + 5))
        guard case .settled(let settled) = book.answer("q1", token: Self.token, choice: "yes", text: nil, at: asked + 6)
        else {
            Issue.record("a second answer must be refused")
            return
        }
        #expect(settled.answer?.answeredAt == asked + 5, "the first answer stays")
        #expect(book.cancel("q1", at: asked + 7) == .settled(settled))
    }

    @Test("a reply question takes non-empty text")
    func reply() {
        var book = QuestionBook([question(form: .reply(.init(placeholder: "Say", button: nil)))])
        guard case .unfit = book.answer("q1", token: Self.token, choice: nil, text: "  \n", at: asked) else {
            Issue.record("blank text must be unfit")
            return
        }
        guard case .accepted(let question) = book.answer("q1", token: Self.token, choice: nil, text: "ok", at: asked)
        else {
            Issue.record("text must be accepted")
            return
        }
        #expect(question.answer?.text == "ok" && question.answer?.choice == nil)
    }

    @Test("fail closed: past its time a pending question reads expired and takes no answer")
    func expiry() {
        var book = QuestionBook([question(timeout: 10), question("q2", timeout: 100)])
        #expect(book["q1"]?.state(at: asked + 9.999) == .pending)
        #expect(book["q1"]?.state(at: asked + 10) == .expired)
        guard
            case .settled(let expired) = book.answer("q1", token: Self.token, choice: "yes", text: nil, at: asked + 10)
        else {
            Issue.record("a late answer must be refused")
            return
        }
        #expect(expired.state == .expired && expired.answer == nil && expired.settledAt == asked + 10)
        #expect(book.nextExpiry == asked + 100)
        #expect(book.expireDue(at: asked + 50).isEmpty, "q1 was recorded expired by the late answer")
        #expect(book.expireDue(at: asked + 100).map(\.id) == ["q2"])
        #expect(book.nextExpiry == nil)
        #expect(book.cancel("q2", at: asked + 101) == .settled(book["q2"]!))
    }

    @Test("cancel once; settled questions are forgotten a week after, pending ones never")
    func cancelAndPurge() {
        var book = QuestionBook([question(timeout: 86_400 * 30), question("q2")])
        guard case .cancelled(let cancelled) = book.cancel("q2", at: asked + 1) else {
            Issue.record("a pending question must cancel")
            return
        }
        #expect(book.cancel("q2", at: asked + 2) == .alreadyCancelled(cancelled))
        #expect(book.cancel("zz", at: asked) == .unknownQuestion)
        #expect(book.purge(at: asked + QuestionBook.retention) == 0)
        #expect(book.purge(at: asked + QuestionBook.retention + 2) == 1)
        #expect(book["q2"] == nil && book["q1"] != nil && book.removed == ["q2"])
    }

    @Test("at most pendingLimit questions are pending")
    func pendingLimit() {
        var book = QuestionBook((0..<QuestionBook.pendingLimit).map { question("q\($0)") })
        let refused = book.add(question("one-more"), at: asked)
        #expect(!refused)
        let added = book.add(question("one-more"), at: asked + 301)
        #expect(added, "once the others expired")
    }

    @Test("a record reads back as written")
    func recordRoundTrip() throws {
        var book = QuestionBook([
            question(form: .choices([.init(id: "a", title: "A", destructive: true, authenticationRequired: true)]))
        ])
        _ = book.answer("q1", token: Self.token, choice: "a", text: nil, at: asked + 3)
        let written = try #require(book["q1"])
        let read = try Question(record: try JSONValue.parse(written.record.serialized()), path: "test")
        #expect(read == written)
        let reply = question(form: .reply(.init(placeholder: "p", button: "b")))
        #expect(try Question(record: reply.record, path: "test") == reply)
        #expect(throws: RegistryError.self) { try Question(record: ["id": "x"], path: "test") }
    }

    @Test("the file: written 0600 on change, untouched when the body throws or changes nothing, corrupt named")
    func file() throws {
        let directory = try makeTemporaryDirectory()
        let store = QuestionFile(path: directory + "/state/questions.json")
        #expect(try store.load().questions.isEmpty)
        try store.update { book in _ = book.add(question(), at: asked) }
        #expect(try store.load()["q1"] == question())
        var info = stat()
        #expect(stat(store.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.update { book in
                _ = book.cancel("q1", at: asked)
                throw Refused()
            }
        }
        try store.update { book in _ = book.answer("q1", token: "forged", choice: "yes", text: nil, at: asked) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
        try Data("{\"questions\": 3}".utf8).write(to: URL(fileURLWithPath: store.path))
        #expect(throws: RegistryError.self) { try store.load() }
    }
}
