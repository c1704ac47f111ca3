import Foundation
import Testing

/// Asking the phone (`/v1/questions`) end to end: the built server, the real emulator, curl as the
/// asker and as the phone (the answer is posted to the URL the recorded push carries, with the
/// token it carries, as the app's sample does).
@Suite("questions: the phone answers")
struct QuestionsEndToEndTests {
    let setup: ProviderSetup
    let stateFile: String
    static let secret = "s3cret-for-questions"

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    var questionsFile: String { setup.directory.file("state/questions.json") }

    func environment(_ emulator: RunningEmulator) -> [String: String] {
        var env = setup.environment
        env["APNS_STATE_FILE"] = stateFile
        return emulator.asAPNs(for: env)
    }

    func serve(_ emulator: RunningEmulator, _ arguments: [String] = []) throws -> RunningServe {
        let secret = try setup.directory.write("secret", Self.secret + "\n", mode: 0o600)
        return try RunningServe(["--secret-file", secret] + arguments, environment: environment(emulator))
    }

    static var auth: [String: String] { ["Authorization": "Bearer \(secret)"] }

    /// Registers `id` with token `n` (and a content key when given) through the CLI.
    func register(
        _ id: String, _ n: Int, name: String, contentKey: String? = nil, groups: [String] = [],
        _ emulator: RunningEmulator
    ) throws {
        var arguments = ["add", id, hexToken(n), "--name", name] + groups.flatMap { ["--group", $0] }
        if contentKey != nil { arguments += ["--content-key-file", "-"] }
        try BuiltTool.run(
            "register-apns", arguments, environment: environment(emulator), stdin: Data((contentKey ?? "").utf8)
        ).expectSuccess()
    }

    /// Asks `body`; the 201's JSON.
    func ask(_ server: RunningServe, _ body: String) throws -> [String: Any] {
        let asked = try server.request("POST", "/v1/questions", json: body, headers: Self.auth)
        #expect(asked.status == 201, "\(asked.body)")
        return try #require(asked.json)
    }

    /// The newest recorded push with collapse id `pushkit-q-<id>` whose `pushkit` member has `key`.
    func recorded(
        _ emulator: RunningEmulator, question id: String, having key: String, timeout: TimeInterval = 10
    )
        -> [String: Any]?
    {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let found = emulator.records().last { record in
                guard record["collapse_id"] as? String == "pushkit-q-\(id)" else { return false }
                return ((record["payload"] as? [String: Any])?["pushkit"] as? [String: Any])?[key] != nil
            }
            if let found { return found }
            usleep(20_000)
        } while Date() < deadline
        return nil
    }

    static func pushkit(_ record: [String: Any]?) -> [String: Any] {
        ((record?["payload"] as? [String: Any])?["pushkit"] as? [String: Any]) ?? [:]
    }

    static func alert(_ record: [String: Any]?) -> [String: Any] {
        (((record?["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? [String: Any]) ?? [:]
    }

    /// Posts an answer to the push's `answer_url`, as the phone does (no secret).
    /// - Parameter server: the server to post to, at the answer URL's path (a server restarted on
    ///   another port); the answer URL as it is when `nil`.
    func answer(_ push: [String: Any], _ members: String, at server: RunningServe? = nil) throws -> HTTPExchange {
        var url = try #require(push["answer_url"] as? String)
        if let server, let path = URL(string: url)?.path { url = server.baseURL + path }
        let token = try #require(push["answer_token"] as? String)
        return try HTTPExchange.curl("POST", url, body: Data(#"{"token": "\#(token)", \#(members)}"#.utf8))
    }

    /// A `GET ...?wait=` in a curl process of its own, so that it waits while the test goes on
    /// (not on a thread of the test's pool, which a loaded machine may not give it in time).
    static func startWaiting(_ url: String, headers: [String: String] = [:]) throws -> RunningTool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["curl", "-sS", "--max-time", "120"]
            + headers.sorted { $0.key < $1.key }.flatMap { ["-H", "\($0): \($1)"] }
            + [url]
        return try RunningTool(process, stdin: nil)
    }

    /// The JSON a `startWaiting` request was answered.
    static func finished(_ request: RunningTool) throws -> [String: Any] {
        let result = try request.wait()
        #expect(result.status == 0, "curl: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    // MARK: The round trip

    @Test("the push as sent, the answer by the played phone, ?wait, and the notice that replaces it")
    func roundTrip() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "Ada's iPhone", emulator)
        try register("tablet", 2, name: "Ada's iPad", emulator)
        let server = try serve(emulator)
        let asked = try ask(
            server,
            #"""
            {"title": "Deploy?", "body": "main at 3f2c1a", "device": "phone", "timeout": 3600, "urgency": "high",
             "choices": [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", "destructive": true}]}
            """#)
        let id = try #require(asked["id"] as? String)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        #expect(asked["devices"] as? [String] == ["phone"], "only the device asked")
        let expiresAt = try #require(asked["expires_at"] as? String)

        let record = try #require(recorded(emulator, question: id, having: "answer_token"))
        #expect(record["device_token"] as? String == hexToken(1))
        let payload = try #require(record["payload"] as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["category"] as? String == "pushkit.allow-deny")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["interruption-level"] as? String == "time-sensitive")
        #expect(Self.alert(record) as NSDictionary == ["title": "Deploy?", "body": "main at 3f2c1a"])
        let push = Self.pushkit(record)
        #expect(Set(push.keys) == ["question", "choices", "answer_url", "answer_token", "expires_at"])
        #expect(push["question"] as? String == id && push["expires_at"] as? String == expiresAt)
        #expect(push["answer_url"] as? String == server.baseURL + "/v1/questions/\(id)/answer")
        let token = try #require(push["answer_token"] as? String)
        #expect(token.count == 43, "32 random bytes, base64url")
        #expect(
            push["choices"] as? NSArray == [
                ["id": "allow", "title": "Allow"], ["id": "deny", "title": "Deny", "destructive": true],
            ])
        // APNs keeps it no longer than the question lasts.
        let expiration = try #require(record["expiration"] as? Int)
        #expect(abs(Double(expiration) - Date().addingTimeInterval(3600).timeIntervalSince1970) < 120)

        // A waiting asker is answered as soon as the phone answers.
        let waiting = try Self.startWaiting(server.baseURL + "/v1/questions/\(id)?wait=60", headers: Self.auth)
        usleep(300_000)
        let answered = try answer(push, #""choice": "allow""#)
        #expect(answered.status == 200, "\(answered.body)")
        #expect(answered.json?["state"] as? String == "answered")
        let status = try Self.finished(waiting)
        #expect(status["state"] as? String == "answered", "\(status)")
        let answer = try #require(status["answer"] as? [String: Any])
        #expect(answer["choice"] as? String == "allow" && answer["device"] as? String == "phone")
        #expect(answer["answered_at"] as? String != nil && answer["text"] == nil)

        // The question's notification is replaced: same collapse id, no buttons, says who answered.
        let notice = try #require(recorded(emulator, question: id, having: "state"))
        #expect(Self.pushkit(notice) as NSDictionary == ["question": id, "state": "answered"])
        #expect(Self.alert(notice) as NSDictionary == ["title": "Answered: Deploy? (Ada's iPhone)", "body": "Allow"])
        let noticeAPS = (notice["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(noticeAPS?["category"] == nil && noticeAPS?["sound"] == nil)
        #expect(noticeAPS?["interruption-level"] as? String == "passive")

        // The store keeps the token's digest, never the token, in a file only its owner reads.
        let stored = try String(contentsOfFile: questionsFile, encoding: .utf8)
        let digest = try sha256Hex(token)
        #expect(!stored.contains(token) && stored.contains(digest))
        let mode = try FileManager.default.attributesOfItem(atPath: questionsFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!server.stderr.contains(token) && !server.stderr.contains(Self.secret))
    }

    @Test("a typed reply, a button set of its own, and a group")
    func replyAndDynamicCategory() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "iPhone", groups: ["family"], emulator)
        let server = try serve(emulator)
        let reply = try ask(server, #"{"title": "Commit message?", "reply": {}, "group": "family"}"#)
        let replyID = try #require(reply["id"] as? String)
        let replyPush = try #require(recorded(emulator, question: replyID, having: "answer_token"))
        #expect(
            ((replyPush["payload"] as? [String: Any])?["aps"] as? [String: Any])?["category"] as? String
                == "pushkit.reply")
        #expect(Self.pushkit(replyPush)["reply"] as? NSDictionary == [:])
        let choice = try answer(Self.pushkit(replyPush), #""choice": "yes""#)
        #expect(choice.status == 422 && choice.error?.contains("\"text\"") == true, "\(choice.body)")
        let empty = try answer(Self.pushkit(replyPush), #""text": "  ""#)
        #expect(empty.status == 422, "\(empty.body)")
        let long = try answer(Self.pushkit(replyPush), #""text": "\#(String(repeating: "x", count: 2001))""#)
        #expect(long.status == 422, "\(long.body)")
        let typed = try answer(Self.pushkit(replyPush), #""text": "Fix the flaky test""#)
        #expect(typed.status == 200, "\(typed.body)")
        #expect((typed.json?["answer"] as? [String: Any])?["text"] as? String == "Fix the flaky test")
        let notice = try #require(recorded(emulator, question: replyID, having: "state"))
        #expect(Self.alert(notice)["body"] as? String == "Fix the flaky test")

        let custom = #"[{"id": "ship", "title": "Ship it"}, {"id": "hold", "title": "Hold"}]"#
        var categories: [String] = []
        for _ in 0..<2 {
            let asked = try ask(server, #"{"title": "Release?", "choices": \#(custom)}"#)
            let record = recorded(emulator, question: try #require(asked["id"] as? String), having: "answer_token")
            let aps = (record?["payload"] as? [String: Any])?["aps"] as? [String: Any]
            categories.append(try #require(aps?["category"] as? String))
        }
        #expect(categories[0] == categories[1], "the same button set has the same category")
        #expect(categories[0].hasPrefix("pushkit.q.") && categories[0].count == "pushkit.q.".count + 16)
    }

    // MARK: Refusals

    @Test("forged, unknown, unfit, late and cancelled answers are refused; bad questions are 400")
    func refusals() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "iPhone", emulator)
        let server = try serve(emulator)
        let yesNo = #""choices": [{"id": "yes", "title": "Yes"}, {"id": "no", "title": "No"}]"#
        let asked = try ask(server, #"{"title": "Merge?", \#(yesNo)}"#)
        let id = try #require(asked["id"] as? String)
        let push = Self.pushkit(recorded(emulator, question: id, having: "answer_token"))
        let url = try #require(push["answer_url"] as? String)

        let forged = try HTTPExchange.curl("POST", url, body: Data(#"{"token": "forged", "choice": "yes"}"#.utf8))
        #expect(forged.status == 403, "\(forged.body)")
        let other = try HTTPExchange.curl(
            "POST", server.baseURL + "/v1/questions/\(String(repeating: "ab", count: 16))/answer",
            body: Data(#"{"token": "\#(push["answer_token"] as? String ?? "")", "choice": "yes"}"#.utf8))
        #expect(other.status == 404, "an unknown question: \(other.body)")
        let unfit = try answer(push, #""choice": "maybe""#)
        #expect(unfit.status == 422 && unfit.error?.contains("yes, no") == true, "\(unfit.body)")
        let typed = try answer(push, #""text": "yes""#)
        #expect(typed.status == 422, "\(typed.body)")
        #expect(try answer(push, #""choice": "no""#).status == 200)
        let late = try answer(push, #""choice": "yes""#)
        #expect(late.status == 409 && late.error?.contains("\"no\"") == true, "\(late.body)")
        let cancelAnswered = try server.request("DELETE", "/v1/questions/\(id)", headers: Self.auth)
        #expect(cancelAnswered.status == 409 && cancelAnswered.json?["state"] as? String == "answered")

        // Cancelled: the notice replaces it, and an answer after is 410.
        let second = try #require(try ask(server, #"{"title": "Rebase?", \#(yesNo)}"#)["id"] as? String)
        let secondPush = Self.pushkit(recorded(emulator, question: second, having: "answer_token"))
        let cancelled = try server.request("DELETE", "/v1/questions/\(second)", headers: Self.auth)
        #expect(cancelled.status == 200 && cancelled.json?["state"] as? String == "cancelled", "\(cancelled.body)")
        #expect(try server.request("DELETE", "/v1/questions/\(second)", headers: Self.auth).status == 200)
        #expect(try answer(secondPush, #""choice": "yes""#).status == 410)
        let notice = try #require(recorded(emulator, question: second, having: "state"))
        #expect(Self.alert(notice)["title"] as? String == "Cancelled: Rebase?")

        // The secret guards everything but the answer.
        #expect(try server.request("POST", "/v1/questions", json: #"{"title": "x", \#(yesNo)}"#).status == 401)
        #expect(try server.request("GET", "/v1/questions/\(id)").status == 401)
        #expect(try server.request("DELETE", "/v1/questions/\(id)").status == 401)
        for (body, expected) in [
            (#"{"body": "no title", \#(yesNo)}"#, "title"),
            (#"{"title": "x"}"#, "choices"),
            (#"{"title": "x", \#(yesNo), "reply": {}}"#, "not both"),
            (#"{"title": "x", "choices": []}"#, "1 to 4"),
            (#"{"title": "x", "choices": [{"id": "a b", "title": "A"}]}"#, "letters"),
            (#"{"title": "x", "choices": [{"id": "a", "title": "A"}, {"id": "a", "title": "B"}]}"#, "twice"),
            (#"{"title": "x", \#(yesNo), "timeout": 0}"#, "timeout"),
            (#"{"title": "x", \#(yesNo), "timeout": 86401}"#, "timeout"),
            (#"{"title": "x", \#(yesNo), "urgency": "urgent"}"#, "urgency"),
            (#"{"title": "x", \#(yesNo), "colour": "red"}"#, "colour"),
        ] {
            let refused = try server.request("POST", "/v1/questions", json: body, headers: Self.auth)
            #expect(refused.status == 400 && refused.error?.contains(expected) == true, "\(body): \(refused.body)")
        }
        let unknownDevice = try server.request(
            "POST", "/v1/questions", json: #"{"title": "x", \#(yesNo), "device": "nobody"}"#, headers: Self.auth)
        #expect(unknownDevice.status == 404, "\(unknownDevice.body)")
        #expect(try server.request("GET", "/v1/questions/\(id)?wait=61", headers: Self.auth).status == 400)
        #expect(try server.request("GET", "/v1/questions/not-an-id", headers: Self.auth).status == 404)

    }

    @Test("wrong answer tokens spend the client's allowance of failures: past it even the right one is refused")
    func guessing() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "iPhone", emulator)
        let server = try serve(emulator, ["--rate-limit", "1", "--public-url", "https://push.example.net/"])
        let yesNo = #""choices": [{"id": "yes", "title": "Yes"}, {"id": "no", "title": "No"}]"#
        let id = try #require(try ask(server, #"{"title": "Tag?", \#(yesNo)}"#)["id"] as? String)
        let push = Self.pushkit(recorded(emulator, question: id, having: "answer_token"))
        #expect(push["answer_url"] as? String == "https://push.example.net/v1/questions/\(id)/answer")
        var statuses: [Int] = []
        for _ in 0..<3 {
            statuses.append(
                try HTTPExchange.curl(
                    "POST", server.baseURL + "/v1/questions/\(id)/answer",
                    body: Data(#"{"token": "guess", "choice": "yes"}"#.utf8)
                ).status)
        }
        // One failure a minute: the second guess is refused before its token is looked at.
        #expect(statuses == [403, 429, 429], "\(statuses)")
        let locked = try answer(push, #""choice": "yes""#, at: server)
        #expect(locked.status == 429 && locked.headers["retry-after"] != nil, "\(locked.body)")
        // The allowance is the one failed authentications spend: this client is refused everywhere.
        #expect(try server.request("GET", "/v1/questions/\(id)", headers: Self.auth).status == 429)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: questionsFile)))
        let questions = (stored as? [String: Any])?["questions"] as? [[String: Any]]
        #expect(questions?.first?["state"] as? String == "pending", "nothing was answered")
    }

    @Test("a question nobody answers expires on time: ?wait returns expired, the notice replaces it, 410 after")
    func expiry() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "iPhone", emulator)
        let server = try serve(emulator)
        let asked = try ask(server, #"{"title": "Reboot?", "choices": [{"id": "ok", "title": "OK"}], "timeout": 1}"#)
        let id = try #require(asked["id"] as? String)
        let push = Self.pushkit(recorded(emulator, question: id, having: "answer_token"))
        let waited = try server.request("GET", "/v1/questions/\(id)?wait=20", headers: Self.auth)
        #expect(waited.json?["state"] as? String == "expired", "\(waited.body)")
        #expect(waited.json?["answer"] == nil)
        let notice = try #require(recorded(emulator, question: id, having: "state"))
        #expect(Self.alert(notice)["title"] as? String == "Expired: Reboot?")
        let late = try answer(push, #""choice": "ok""#)
        #expect(late.status == 410, "\(late.body)")
    }

    // MARK: Agents

    @Test("an MCP client asks at /mcp, the phone answers while wait_for_answer waits, and gets the choice")
    func agentAtMCP() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "Ada's iPhone", emulator)
        let server = try serve(emulator)
        let calls = """
            [{"tool": "ask", "arguments": {"title": "Allow git push --force?", "choices":
              [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", "destructive": true}],
              "timeout": 3600}},
             {"tool": "wait_for_answer", "arguments": {"id": "${id}", "wait": 55}},
             {"tool": "cancel_question", "arguments": {"id": "${id}"}},
             {"tool": "wait_for_answer", "arguments": {"id": "0123456789abcdef0123456789abcdef", "wait": 0}}]
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", AgentToolsEndToEndTests.script, "http", server.baseURL + "/mcp", Self.secret, calls,
        ]
        let agent = try RunningTool(process, stdin: nil)
        // The phone answers once the question's push has arrived, while the agent waits.
        let deadline = Date().addingTimeInterval(60)
        var push: [String: Any] = [:]
        while push.isEmpty, Date() < deadline {
            push = Self.pushkit(emulator.records().last { Self.pushkit($0)["answer_token"] != nil })
            if push.isEmpty { usleep(50_000) }
        }
        try #require(!push.isEmpty, "the question's push: \(server.stderr)")
        usleep(200_000)
        #expect(try answer(push, #""choice": "deny""#).status == 200)
        let result = try agent.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        try #require(lines.count == 5, "\(result.stdout)")
        let asked = try #require(lines[1]["structured"] as? [String: Any])
        #expect(asked["id"] as? String == push["question"] as? String)
        #expect(asked["devices"] as? [String] == ["phone"])
        let waited = try #require(lines[2]["structured"] as? [String: Any])
        #expect(waited["state"] as? String == "answered", "\(lines[2])")
        #expect((waited["answer"] as? [String: Any])?["choice"] as? String == "deny")
        #expect(lines[3]["is_error"] as? Bool == true, "an answered question cannot be cancelled: \(lines[3])")
        #expect(lines[4]["is_error"] as? Bool == true && "\(lines[4]["text"] ?? "")".contains("no question"))
        #expect(push["answer_url"] as? String == server.baseURL + "/v1/questions/\(push["question"] ?? "")/answer")
    }

    // MARK: Durable

    @Test("a restart of serve between question and answer loses nothing, and expiry still comes on time")
    func restart() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try register("phone", 1, name: "iPhone", emulator)
        var server = try serve(emulator)
        let choices = #""choices": [{"id": "go", "title": "Go"}]"#
        let kept = try #require(try ask(server, #"{"title": "Kept?", \#(choices), "timeout": 3600}"#)["id"] as? String)
        let short = try ask(server, #"{"title": "Short?", \#(choices), "timeout": 2}"#)
        let shortID = try #require(short["id"] as? String)
        let push = Self.pushkit(recorded(emulator, question: kept, having: "answer_token"))
        #expect(server.terminate() == 0)
        // Down past the short question's expiry.
        let expiresText = try #require(short["expires_at"] as? String)
        let expiresAt = try #require(ISO8601DateFormatter.withFractions.date(from: expiresText))
        while Date() < expiresAt.addingTimeInterval(0.2) { usleep(50_000) }

        server = try serve(emulator)
        let answered = try answer(push, #""choice": "go""#, at: server)
        #expect(answered.status == 200, "\(answered.body)")
        let status = try server.request("GET", "/v1/questions/\(kept)", headers: Self.auth)
        #expect((status.json?["answer"] as? [String: Any])?["choice"] as? String == "go", "\(status.body)")
        let expired = try server.request("GET", "/v1/questions/\(shortID)", headers: Self.auth)
        #expect(expired.json?["state"] as? String == "expired")
        let notice = try #require(recorded(emulator, question: shortID, having: "state"))
        #expect(Self.alert(notice)["title"] as? String == "Expired: Short?")
    }

    // MARK: Encrypted

    @Test("an encrypted question carries nothing in clear, and its sealed token answers it")
    func encrypted() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let key = Data((10..<42).map { UInt8($0) }).base64EncodedString()
        try register("phone", 1, name: "iPhone", contentKey: key, emulator)
        let server = try serve(emulator)
        let asked = try ask(
            server,
            #"{"title": "Wire the money?", "body": "to account 4711", "choices": [{"id": "yes", "title": "Yes"}], "encrypt": true}"#
        )
        let id = try #require(asked["id"] as? String)
        let record = try #require(
            emulator.waitForRecords(1).last { $0["collapse_id"] as? String == "pushkit-q-\(id)" })
        let payload = try #require(record["payload"] as? [String: Any])
        #expect(Set(payload.keys) == ["aps", "enc"], "\(payload.keys)")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
        for secret in ["Wire the money", "4711", "answer_token", "answer_url", id, "pushkit"] {
            #expect(!text.contains(secret), "\(secret) is in clear")
        }
        let sealed = try #require(payload["enc"] as? String)
        let opened = try #require(try openSealed([(key, sealed)]).first)
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(opened.utf8)) as? [String: Any])
        let push = try #require(plain["pushkit"] as? [String: Any])
        #expect(push["question"] as? String == id)
        #expect(try answer(push, #""choice": "yes""#).status == 200)
    }
}

extension ISO8601DateFormatter {
    /// Reads the endpoint's timestamps (milliseconds, `Z`).
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
