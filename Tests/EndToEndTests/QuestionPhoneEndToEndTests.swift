import Foundation
import Testing

/// A question's whole round trip with the emulator playing the phone: `register-apns serve` asks
/// (`POST /v1/questions`), the emulator records the push, `POST /emulator/answer` posts the tap or
/// the typed reply to the push's `answer_url` with its `answer_token` (as the guide's app does),
/// and the question reads answered; a second answer is refused, the settled notice replaces the
/// question under the same collapse id, and a sealed question cannot be answered by the emulator.
@Suite("questions: the emulator plays the phone against register-apns serve")
struct QuestionPhoneEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String
    static let secret = "s3cret-for-questions"

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("state/devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    /// The emulator, serve sending through it (and through its FCM with `fcm`), and `phone` registered.
    func start(fcm: Bool = false) throws -> (emulator: RunningEmulator, server: RunningServe) {
        let emulator = try RunningEmulator([], environment: setup.environment)
        var env = clientEnvironment(emulator)
        if fcm {
            env["FCM_URL"] = emulator.baseURL
            env["FCM_SERVICE_ACCOUNT"] = EmulatorFCMTests.accountPath(emulator)
        }
        try register("phone", hexToken(1), ["--name", "Ada's iPhone"], env: env)
        let secretFile = try setup.directory.write("serve.secret", Self.secret + "\n", mode: 0o600)
        let server = try RunningServe(["--secret-file", secretFile], environment: env)
        return (emulator, server)
    }

    var auth: [String: String] { ["Authorization": "Bearer \(Self.secret)"] }

    /// `POST /emulator/answer` with `body`: the emulator's status and JSON.
    func answer(_ emulator: RunningEmulator, _ body: String) throws -> (status: Int, json: [String: Any]) {
        let response = try Curl.request(emulator.baseURL + "/emulator/answer", body: body, cacert: emulator.caPath)
        return (response.status, try #require(response.json, "\(response.status) \(response.body)"))
    }

    @Test("a tap answers the question: serve reads it answered by the phone; a second tap is 409")
    func tapRoundTrip() throws {
        let (emulator, server) = try start()
        let asked = try server.request(
            "POST", "/v1/questions",
            json:
                #"{"title": "Deploy to production?", "body": "main at 3f2c1a", "choices": [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", "destructive": true}], "timeout": 120}"#,
            headers: auth)
        #expect(asked.status == 201, "\(asked.body)")
        let id = try #require(asked.json?["id"] as? String)
        #expect(asked.json?["devices"] as? [String] == ["phone"])

        let push = try #require(emulator.waitForRecords(1).last)
        #expect(push["collapse_id"] as? String == "pushkit-q-\(id)")
        let payload = try #require(push["payload"] as? [String: Any])
        let pushkit = try #require(payload["pushkit"] as? [String: Any])
        #expect(pushkit["question"] as? String == id)
        #expect((pushkit["answer_url"] as? String)?.hasSuffix("/v1/questions/\(id)/answer") == true)

        let tapped = try answer(emulator, #"{"choice": "allow"}"#)
        #expect(tapped.status == 200, "\(tapped.json)")
        #expect(tapped.json["question"] as? String == id)
        #expect(tapped.json["status"] as? Int == 200, "\(tapped.json)")
        #expect((tapped.json["body"] as? [String: Any])?["state"] as? String == "answered")

        let status = try server.request("GET", "/v1/questions/\(id)", headers: auth)
        #expect(status.status == 200, "\(status.body)")
        #expect(status.json?["state"] as? String == "answered")
        let chosen = try #require(status.json?["answer"] as? [String: Any], "\(status.body)")
        #expect(chosen["choice"] as? String == "allow")
        #expect(chosen["device"] as? String == "phone")

        // Another tap on the same question (the emulator answers the question, not the notice).
        let late = try answer(emulator, #"{"choice": "deny", "question": "\#(id)"}"#)
        #expect(late.status == 200)
        #expect(late.json["status"] as? Int == 409, "\(late.json)")

        // The settled notice replaced the question on the phone: same collapse id, a state, no buttons.
        let notices = emulator.waitForRecords(2).dropFirst().compactMap { record -> [String: Any]? in
            guard record["collapse_id"] as? String == "pushkit-q-\(id)" else { return nil }
            return record["payload"] as? [String: Any]
        }
        let notice = try #require(notices.first, "\(emulator.records())")
        #expect((notice["pushkit"] as? [String: Any])?["state"] as? String == "answered")
        #expect((notice["aps"] as? [String: Any])?["category"] == nil)
    }

    @Test("the guide's app registers the categories serve names, the choice ids as action identifiers")
    func guideCategories() throws {
        let (emulator, server) = try start()
        let bodies = [
            #""choices": [{"id": "yes", "title": "Yes"}, {"id": "no", "title": "No"}]"#,
            #""choices": [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", "destructive": true}]"#,
            #""reply": {}"#,
            #""choices": [{"id": "ship", "title": "Ship it"}]"#,
        ]
        for body in bodies {
            let asked = try server.request("POST", "/v1/questions", json: #"{"title": "Q?", \#(body)}"#, headers: auth)
            #expect(asked.status == 201, "\(asked.body)")
        }
        let categories = emulator.waitForRecords(bodies.count).compactMap {
            (($0["payload"] as? [String: Any])?["aps"] as? [String: Any])?["category"] as? String
        }
        #expect(categories.prefix(3) == ["pushkit.yes-no", "pushkit.allow-deny", "pushkit.reply"], "\(categories)")
        #expect(categories.last?.wholeMatch(of: /pushkit\.q\.[0-9a-f]{16}/) != nil, "\(categories)")

        let guide = try String(contentsOfFile: RepositoryFiles.path("docs/guide.md"), encoding: .utf8)
        for expected in [
            #"identifier: "pushkit.yes-no""#, #"UNNotificationAction(identifier: "yes", title: "Yes")"#,
            #"UNNotificationAction(identifier: "no", title: "No")"#, #"identifier: "pushkit.allow-deny""#,
            #"UNNotificationAction(identifier: "allow", title: "Allow")"#,
            #"UNNotificationAction(identifier: "deny", title: "Deny", options: [.destructive])"#,
            #"identifier: "pushkit.reply""#, #"identifier: "reply", title: "Reply""#, #"hasPrefix("pushkit.q.")"#,
        ] {
            #expect(guide.contains(expected), "docs/guide.md registers \(expected)")
        }
    }

    @Test("a typed reply answers a reply question with its text")
    func typedReply() throws {
        let (emulator, server) = try start()
        let asked = try server.request(
            "POST", "/v1/questions", json: #"{"title": "Name the release?", "reply": {"placeholder": "A name"}}"#,
            headers: auth)
        #expect(asked.status == 201, "\(asked.body)")
        let id = try #require(asked.json?["id"] as? String)
        _ = emulator.waitForRecords(1)

        let sent = try answer(emulator, #"{"text": "Aurora", "device_token": "\#(hexToken(1).uppercased())"}"#)
        #expect(sent.json["status"] as? Int == 200, "\(sent.json)")
        let status = try server.request("GET", "/v1/questions/\(id)?wait=5", headers: auth)
        #expect((status.json?["answer"] as? [String: Any])?["text"] as? String == "Aurora", "\(status.body)")
    }

    @Test("a choice the question does not offer is refused by serve (422), and the question stays pending")
    func unknownChoice() throws {
        let (emulator, server) = try start()
        let asked = try server.request(
            "POST", "/v1/questions",
            json: #"{"title": "Proceed?", "choices": [{"id": "yes", "title": "Yes"}, {"id": "no", "title": "No"}]}"#,
            headers: auth)
        let id = try #require(asked.json?["id"] as? String, "\(asked.body)")
        _ = emulator.waitForRecords(1)
        let wrong = try answer(emulator, #"{"choice": "maybe"}"#)
        #expect(wrong.json["status"] as? Int == 422, "\(wrong.json)")
        let status = try server.request("GET", "/v1/questions/\(id)", headers: auth)
        #expect(status.json?["state"] as? String == "pending")
    }

    @Test("a device serve cannot send to (FCM without a Firebase account) leaves the others their question")
    func unsendableDevice() throws {
        let (emulator, server) = try start()
        try register("pixel", fcmTokenText(1), env: clientEnvironment(emulator))
        let asked = try server.request(
            "POST", "/v1/questions", json: #"{"title": "Proceed?", "choices": [{"id": "yes", "title": "Yes"}]}"#,
            headers: auth)
        #expect(asked.status == 201, "\(asked.body)")
        #expect(asked.json?["devices"] as? [String] == ["phone"])
        let tapped = try answer(emulator, #"{"choice": "yes"}"#)
        #expect(tapped.json["status"] as? Int == 200, "\(tapped.json)")
    }

    @Test("an Android phone answers through FCM: the question rides in the message's data")
    func androidAnswers() throws {
        let (emulator, server) = try start(fcm: true)
        let pixel = fcmTokenText(7)
        try register("pixel", pixel, env: clientEnvironment(emulator))
        let asked = try server.request(
            "POST", "/v1/questions",
            json: #"{"title": "Proceed?", "device": "pixel", "choices": [{"id": "yes", "title": "Yes"}]}"#,
            headers: auth)
        #expect(asked.status == 201, "\(asked.body)")
        let id = try #require(asked.json?["id"] as? String)
        let tapped = try answer(emulator, #"{"choice": "yes", "device_token": "\#(pixel)"}"#)
        #expect(tapped.json["status"] as? Int == 200, "\(tapped.json)")
        let status = try server.request("GET", "/v1/questions/\(id)", headers: auth)
        #expect((status.json?["answer"] as? [String: Any])?["device"] as? String == "pixel", "\(status.body)")
    }

    @Test("no question push yet is 404; an encrypted question is sealed to the emulator (422)")
    func nothingToAnswer() throws {
        let (emulator, server) = try start()
        let none = try answer(emulator, #"{"choice": "allow"}"#)
        #expect(none.status == 404, "\(none.json)")

        let env = clientEnvironment(emulator)
        try BuiltTool.run("register-apns", ["make-content-key", "phone"], environment: env).expectSuccess()
        let asked = try server.request(
            "POST", "/v1/questions",
            json: #"{"title": "Secret?", "choices": [{"id": "allow", "title": "Allow"}], "encrypt": true}"#,
            headers: auth)
        #expect(asked.status == 201, "\(asked.body)")
        let id = try #require(asked.json?["id"] as? String)
        let record = try #require(emulator.waitForRecords(1).last)
        let text = "\(record["payload"] ?? "")"
        #expect(!text.contains("Secret?") && !text.contains("answer_token"), "nothing in clear: \(text)")
        let sealed = try answer(emulator, #"{"choice": "allow"}"#)
        #expect(sealed.status == 422, "\(sealed.json)")
        #expect((sealed.json["error"] as? String)?.contains(id) == true)
    }
}
