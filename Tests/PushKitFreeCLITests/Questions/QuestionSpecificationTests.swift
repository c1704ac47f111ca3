import ArgumentParser
import PushKitFreeCore
import Testing

@testable import PushKitFreeCLI

@Suite("A question's checks and body (ask-push)")
struct QuestionSpecificationTests {
    static func flag(_ setting: QuestionSpecification.Setting) -> String { "--\(setting)" }

    static func choices(_ pairs: String...) -> QuestionSpecification.Answers {
        .choices(pairs.map { QuestionChoice(argument: $0)! })
    }

    @Test("--choice ID=TITLE splits at the first '='; without one it is no choice")
    func choiceArgument() {
        #expect(QuestionChoice(argument: "deploy=Deploy = now") == QuestionChoice(id: "deploy", title: "Deploy = now"))
        #expect(QuestionChoice(argument: "=Blank") == QuestionChoice(id: "", title: "Blank"))
        #expect(QuestionChoice(argument: "deploy") == nil)
    }

    @Test(
        "what serve would refuse is found first, naming the flag",
        arguments: [
            (QuestionSpecification(title: " ", answers: choices("a=A")), "--title must not be empty"),
            (QuestionSpecification(title: "Q", answers: .choices([])), "give 1 to 4 --choice (given 0), or --reply"),
            (
                QuestionSpecification(title: "Q", answers: choices("a=A", "b=B", "c=C", "d=D", "e=E")),
                "give 1 to 4 --choice (given 5), or --reply"
            ),
            (
                QuestionSpecification(title: "Q", answers: choices("a b=A")),
                "--choice \"a b=A\": the id must be 1 to 64 characters of A-Z a-z 0-9 _ . -"
            ),
            (
                QuestionSpecification(title: "Q", answers: choices("=A")),
                "--choice \"=A\": the id must be 1 to 64 characters of A-Z a-z 0-9 _ . -"
            ),
            (QuestionSpecification(title: "Q", answers: choices("a=A", "a=B")), "--choice id \"a\" is given twice"),
            (
                QuestionSpecification(title: "Q", answers: choices("a=")),
                "--choice a: the title must be 1 to 64 characters"
            ),
            (
                QuestionSpecification(title: "Q", answers: choices("a=" + String(repeating: "x", count: 65))),
                "--choice a: the title must be 1 to 64 characters"
            ),
        ] as [(QuestionSpecification, String)])
    func problems(question: QuestionSpecification, problem: String) {
        #expect(question.problem(naming: Self.flag) == problem)
    }

    @Test("--timeout is 1 to 86400 seconds")
    func timeout() {
        var question = QuestionSpecification(title: "Q", answers: .reply(placeholder: nil, button: nil))
        #expect(question.problem(naming: Self.flag) == nil)
        for (seconds, fine) in [(0, false), (1, true), (86_400, true), (86_401, false), (-5, false)] {
            question.timeout = seconds
            #expect((question.problem(naming: Self.flag) == nil) == fine, "\(seconds)")
        }
    }

    @Test("the body is POST /v1/questions' body: marks only when set, audience, urgency, encrypt")
    func body() {
        var first = QuestionChoice(id: "deploy", title: "Deploy")
        first.destructive = true
        first.authenticationRequired = true
        var question = QuestionSpecification(
            title: "Deploy?", body: "main at 3f2c1a",
            answers: .choices([first, QuestionChoice(id: "cancel", title: "Cancel")]))
        question.audience = .group("phones")
        question.urgency = .high
        question.encrypt = false
        question.timeout = 600
        #expect(
            question.requestBody == [
                "title": "Deploy?", "body": "main at 3f2c1a", "timeout": 600, "group": "phones", "urgency": "high",
                "encrypt": false,
                "choices": [
                    ["id": "deploy", "title": "Deploy", "destructive": true, "authentication_required": true],
                    ["id": "cancel", "title": "Cancel"],
                ],
            ])
        var reply = QuestionSpecification(title: "Name?", answers: .reply(placeholder: "Type it", button: nil))
        reply.audience = .device("ada-iphone")
        #expect(
            reply.requestBody == [
                "title": "Name?", "timeout": 300, "device": "ada-iphone", "reply": ["placeholder": "Type it"],
            ])
    }
}
