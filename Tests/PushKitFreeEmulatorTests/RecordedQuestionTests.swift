import Foundation
import PushKitFreeCore
import Testing

@testable import PushKitFreeEmulator

@Suite("emulator playing the phone: finding the question push in the records")
struct RecordedQuestionTests {
    static let ada = "7f1c9d2e4b6a8c0e1f3a5b7d9c2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b3c5d7e"
    static let bob = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
    static let first = "0123456789abcdef0123456789abcdef"
    static let second = "fedcba9876543210fedcba9876543210"

    /// A record line as the emulator writes one for an APNs push.
    static func record(
        token: String = ada, status: Int = 200, collapseID: String? = nil, payload: JSONValue,
        provider: String? = nil
    ) -> [UInt8] {
        var object: [String: JSONValue] = [
            "kind": "push", "method": "POST", "path": .string("/3/device/\(token)"), "device_token": .string(token),
            "status": .number(Double(status)), "payload": payload,
            "collapse_id": collapseID.map(JSONValue.string) ?? .null,
        ]
        if let provider { object["provider"] = .string(provider) }
        return Array(JSONValue.object(object).serializedString().utf8) + [0x0A]
    }

    /// A question push's payload, per the contract.
    static func question(
        _ id: String, token: String = "tok-\(UUID().uuidString)", choices: [String]? = ["allow", "deny"]
    )
        -> JSONValue
    {
        var pushkit: [String: JSONValue] = [
            "question": .string(id), "answer_url": .string("http://127.0.0.1:8100/v1/questions/\(id)/answer"),
            "answer_token": .string(token), "expires_at": "2026-11-29T10:00:00Z",
        ]
        if let choices {
            pushkit["choices"] = .array(choices.map { ["id": .string($0), "title": .string($0.capitalized)] })
        } else {
            pushkit["reply"] = ["placeholder": "Say something"]
        }
        return [
            "aps": ["alert": ["title": "Deploy?"], "category": "pushkit.allow-deny", "mutable-content": 1],
            "pushkit": .object(pushkit),
        ]
    }

    @Test("the newest accepted question push is found, with its answer URL, token and choices")
    func newest() throws {
        let lines = [
            Self.record(payload: Self.question(Self.first, token: "old")),
            Self.record(payload: ["aps": ["alert": "just a notification"]]),
            Self.record(token: Self.bob, payload: Self.question(Self.second, token: "bobs")),
        ]
        guard case .found(let found) = RecordedQuestion.newest(in: lines) else {
            Issue.record("no question found")
            return
        }
        #expect(found.id == Self.second)
        #expect(found.deviceToken == Self.bob)
        #expect(found.answerToken == "bobs")
        #expect(found.answerURL == "http://127.0.0.1:8100/v1/questions/\(Self.second)/answer")
        #expect(found.choices == ["allow", "deny"])
    }

    @Test("the question and device filters pick an older push; tokens match in any case")
    func filters() {
        let lines = [
            Self.record(payload: Self.question(Self.first, token: "ada-first")),
            Self.record(token: Self.bob, payload: Self.question(Self.first, token: "bob-first")),
            Self.record(payload: Self.question(Self.second, token: "ada-second")),
        ]
        func token(_ lookup: RecordedQuestion.Lookup) -> String? {
            if case .found(let question) = lookup { return question.answerToken }
            return nil
        }
        #expect(token(RecordedQuestion.newest(in: lines, question: Self.first)) == "bob-first")
        #expect(token(RecordedQuestion.newest(in: lines, question: Self.first, deviceToken: Self.ada)) == "ada-first")
        #expect(token(RecordedQuestion.newest(in: lines, deviceToken: Self.bob.uppercased())) == "bob-first")
        #expect(RecordedQuestion.newest(in: lines, question: "ffffffffffffffffffffffffffffffff") == .none)
        #expect(RecordedQuestion.newest(in: lines, question: Self.second, deviceToken: Self.bob) == .none)
    }

    @Test("refused pushes, FCM records and settled notices are not questions to answer")
    func skipped() {
        let settled: JSONValue = [
            "aps": ["alert": ["title": "Answered: Deploy? (iPhone)"], "interruption-level": "passive"],
            "pushkit": ["question": .string(Self.first), "state": "answered"],
        ]
        #expect(RecordedQuestion.newest(in: [Self.record(status: 410, payload: Self.question(Self.first))]) == .none)
        #expect(
            RecordedQuestion.newest(in: [Self.record(payload: Self.question(Self.first), provider: "fcm")]) == .none)
        #expect(RecordedQuestion.newest(in: [Self.record(payload: settled)]) == .none)
        // A settled notice after the question leaves the question itself to answer (the server then refuses).
        let lines = [Self.record(payload: Self.question(Self.first, token: "t")), Self.record(payload: settled)]
        guard case .found(let found) = RecordedQuestion.newest(in: lines) else {
            Issue.record("the question before the settled notice was not found")
            return
        }
        #expect(found.answerToken == "t")
    }

    /// An FCM send record carrying `pushkit` as Android reads it (`data`, a JSON string) and as iOS
    /// through Firebase does (`apns.payload`).
    static func fcmRecord(_ question: JSONValue, token: String, validateOnly: Bool = false) -> [UInt8] {
        let pushkit = question["pushkit"] ?? .null
        let message: JSONValue = [
            "token": .string(token), "data": ["pushkit": .string(pushkit.serializedString())],
            "apns": ["headers": ["apns-collapse-id": "pushkit-q-x"], "payload": question],
        ]
        let record: JSONValue = [
            "provider": "fcm", "kind": "send", "device_token": .string(token), "validate_only": .bool(validateOnly),
            "message": message, "status": 200,
        ]
        return Array(record.serializedString().utf8) + [0x0A]
    }

    @Test("an FCM message carries the question in data (Android) and is answered like an APNs push")
    func fcm() {
        let pixel = "eX4mPl3T:APA91bH" + String(repeating: "k3yX9_q-Zw", count: 14)
        let lines = [
            Self.fcmRecord(Self.question(Self.first, token: "android"), token: pixel),
            Self.fcmRecord(Self.question(Self.second, token: "checked only"), token: pixel, validateOnly: true),
        ]
        guard case .found(let found) = RecordedQuestion.newest(in: lines) else {
            Issue.record("the FCM question was not found")
            return
        }
        #expect(found.id == Self.first && found.answerToken == "android" && found.deviceToken == pixel)
        #expect(found.choices == ["allow", "deny"])
    }

    @Test("a typed-reply question offers no choices")
    func reply() {
        let lines = [Self.record(payload: Self.question(Self.first, choices: nil))]
        guard case .found(let found) = RecordedQuestion.newest(in: lines) else {
            Issue.record("not found")
            return
        }
        #expect(found.choices.isEmpty)
    }

    @Test("a sealed question push is known by its collapse id and reported sealed, never guessed at")
    func sealed() {
        let sealed = Self.record(
            collapseID: "pushkit-q-\(Self.second)", payload: ["aps": ["mutable-content": 1], "enc": "AAAA"])
        let sealedNotQuestion = Self.record(
            collapseID: "news", payload: ["aps": ["mutable-content": 1], "enc": "AAAA"])
        let lines = [Self.record(payload: Self.question(Self.first)), sealed, sealedNotQuestion]
        #expect(RecordedQuestion.newest(in: lines) == .sealed(question: Self.second, deviceToken: Self.ada))
        guard case .found(let found) = RecordedQuestion.newest(in: lines, question: Self.first) else {
            Issue.record("the readable question was not found past the sealed one")
            return
        }
        #expect(found.id == Self.first)
    }

    @Test("the kept records are searched oldest to newest through the state's ring")
    func stateRing() {
        let state = EmulatorState(devices: ScriptedDeviceStates(), seed: 1)
        for index in 0..<(EmulatorState.recentRecordLimit + 5) {
            let id = String(format: "%032x", index)
            state.didAnswer(accepted: true, recordLine: Self.record(payload: Self.question(id, token: "t\(index)")))
        }
        let lines = state.recentRecordLines()
        #expect(lines.count == EmulatorState.recentRecordLimit)
        guard case .found(let newest) = RecordedQuestion.newest(in: lines) else {
            Issue.record("not found")
            return
        }
        #expect(newest.answerToken == "t\(EmulatorState.recentRecordLimit + 4)")
        #expect(RecordedQuestion.newest(in: lines, question: String(format: "%032x", 4)) == .none)
    }
}

@Suite("emulator playing the phone: the control body and the answer URL")
struct PhoneAnswerRequestTests {
    @Test("a choice or a typed reply, with the optional filters; the answer body carries the token")
    func parses() throws {
        let tap = try PhoneAnswerRequest.parse(
            Array(#"{"choice": "allow", "question": "ab", "device_token": "0a"}"#.utf8))
        #expect(tap == PhoneAnswerRequest(action: .choice("allow"), question: "ab", deviceToken: "0a"))
        let body = try JSONValue.parse(Data(tap.answerBody(token: "T0k_-")))
        #expect(body == ["token": "T0k_-", "choice": "allow"])
        let typed = try PhoneAnswerRequest.parse(Array(#"{"text": "ship it \"now\"", "question": null}"#.utf8))
        #expect(typed == PhoneAnswerRequest(action: .text("ship it \"now\""), question: nil, deviceToken: nil))
        #expect(try JSONValue.parse(Data(typed.answerBody(token: "t"))) == ["token": "t", "text": "ship it \"now\""])
    }

    @Test(
        "bad bodies are refused with a sentence naming what is wrong",
        arguments: [
            ("", "not JSON"), ("[]", "JSON object"), (#"{}"#, "give \"choice\""),
            (#"{"choice": "a", "text": "b"}"#, "not both"), (#"{"choice": ""}"#, "non-empty"),
            (#"{"choice": 1}"#, "non-empty string"), (#"{"choice": "a", "token": "x"}"#, "unknown member \"token\""),
        ])
    func refuses(body: String, expected: String) {
        #expect {
            try PhoneAnswerRequest.parse(Array(body.utf8))
        } throws: { error in
            (error as? PhoneAnswerRequest.Problem)?.message.contains(expected) == true
        }
    }

    @Test("answer URLs: scheme, host, port and target")
    func answerURL() throws {
        let plain = try AnswerURL("http://127.0.0.1:8100/v1/questions/ab/answer")
        #expect(!plain.isSecure && plain.host == "127.0.0.1" && plain.port == 8100)
        #expect(plain.target == "/v1/questions/ab/answer")
        #expect(plain.isIPAddress && plain.hostHeader == "127.0.0.1:8100")
        let secure = try AnswerURL("HTTPS://push.example.net/v1/q?x=1#frag")
        #expect(
            secure.isSecure && secure.host == "push.example.net" && secure.port == 443 && secure.target == "/v1/q?x=1")
        #expect(!secure.isIPAddress && secure.hostHeader == "push.example.net")
        let six = try AnswerURL("http://[::1]:9/")
        #expect(six.host == "::1" && six.port == 9 && six.isIPAddress && six.authority == "[::1]:9")
        #expect(try AnswerURL("http://example.net").target == "/")
        for bad in [
            "ftp://x/", "http://", "http://u:p@host/", "http://h:0/", "http://h:99999/", "http://[::1/", "http://a b/",
        ] {
            #expect(throws: AnswerURL.Problem.self, "\(bad)") { try AnswerURL(bad) }
        }
    }
}
