import Foundation
import Testing

/// Taking a notification back, end to end: `send-push --withdraw`, `POST /v1/withdraw`, ntfy's
/// sequence ids with their clear and delete, Bark's `delete`, and the agent tool at `/mcp`, as the
/// emulator received them.
@Suite("withdrawals: every way in sends the background push that takes a notification back")
struct WithdrawEndToEndTests {
    let setup: ProviderSetup
    static let secret = "withdraw-s3cret-for-tests"
    static let auth = ["Authorization": "Bearer \(secret)"]

    init() throws {
        setup = try ProviderSetup()
    }

    func environment(_ emulator: RunningEmulator) -> [String: String] { setup.clients(of: emulator) }

    /// The emulator with `phone` (token 1) and `ipad` (token 2, group `family`) registered, and
    /// `register-apns serve` behind the secret.
    func start() throws -> (RunningEmulator, RunningServe) {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = environment(emulator)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: env).expectSuccess()
        try BuiltTool.run("register-apns", ["add", "ipad", hexToken(2), "--group", "family"], environment: env)
            .expectSuccess()
        let secret = try setup.directory.write("secret", Self.secret + "\n", mode: 0o600)
        return (emulator, try RunningServe(["--secret-file", secret], environment: env))
    }

    /// `value` as JSON with sorted keys, to compare payloads exactly.
    static func canonical(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else {
            return "none"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The payload of a withdrawal of `id`, exactly.
    static func withdrawal(_ id: String) -> String {
        canonical(["aps": ["content-available": 1], "pushkit": ["withdraw": id]])
    }

    /// Checks that `record` is a withdrawal of `id` to the device of `token`: a background push,
    /// priority 5, no collapse id, nothing in the payload but the id.
    static func expectWithdrawal(
        _ record: [String: Any]?, of id: String, token: String = hexToken(1),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(record?["push_type"] as? String == "background", sourceLocation: sourceLocation)
        #expect(record?["priority"] as? Int == 5, sourceLocation: sourceLocation)
        #expect(record?["collapse_id"] == nil || record?["collapse_id"] is NSNull, sourceLocation: sourceLocation)
        #expect(record?["device_token"] as? String == token, sourceLocation: sourceLocation)
        #expect(
            canonical(record?["payload"]) == withdrawal(id), "\(record ?? [:])", sourceLocation: sourceLocation)
    }

    /// ntfy's collapse id of `sequenceID` on `topic`, computed by `sha256sum`.
    static func ntfyCollapseID(topic: String, _ sequenceID: String) throws -> String {
        try sha256Hex("ntfy\n\(topic)\n\(sequenceID)")
    }

    @Test("send-push --withdraw: the background push of the id alone; with --title refused (65), nothing sent")
    func sendPush() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = environment(emulator)
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: env).expectSuccess()
        try BuiltTool.run("send-push", ["--withdraw", "build-42", "--device", "phone"], environment: env)
            .expectSuccess()
        let records = emulator.waitForRecords(1)
        try #require(records.count == 1, "\(records)")
        Self.expectWithdrawal(records[0], of: "build-42")

        let refused = try BuiltTool.run("send-push", ["--withdraw", "x", "--title", "y"], environment: env)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("--withdraw sends a background push that carries only the id"), "\(refused.stderr)")
        let empty = try BuiltTool.run("send-push", ["--withdraw", "", "--device", "phone"], environment: env)
        #expect(empty.status == 65 && empty.stderr.contains("--withdraw must be the collapse id"), "\(empty.stderr)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(emulator.records().count == 1, "nothing sent for a refused withdrawal")
    }

    @Test("POST /v1/withdraw: 200 with the send report; unknown member 400, no secret 401, unknown device 404")
    func route() throws {
        let (emulator, server) = try start()
        let sent = try server.request(
            "POST", "/v1/withdraw", json: #"{"id": "build-42", "device": "phone"}"#, headers: Self.auth)
        #expect(sent.status == 200, "\(sent.body)")
        #expect(sent.json?["sent"] as? Int == 1, "\(sent.body)")
        let result = (sent.json?["results"] as? [[String: Any]])?.first
        #expect(result?["device_id"] as? String == "phone" && result?["success"] as? Bool == true, "\(sent.body)")
        let records = emulator.waitForRecords(1)
        try #require(records.count == 1, "\(records)")
        Self.expectWithdrawal(records[0], of: "build-42")

        let group = try server.request(
            "POST", "/v1/withdraw", json: #"{"id": "dinner", "group": "family"}"#, headers: Self.auth)
        #expect(group.status == 200 && group.json?["sent"] as? Int == 1, "\(group.body)")
        let second = emulator.waitForRecords(2)
        try #require(second.count == 2, "\(second)")
        Self.expectWithdrawal(second[1], of: "dinner", token: hexToken(2))

        let unknown = try server.request(
            "POST", "/v1/withdraw", json: #"{"id": "build-42", "title": "x"}"#, headers: Self.auth)
        #expect(
            unknown.status == 400 && unknown.error?.hasPrefix("unknown member \"title\"") == true, "\(unknown.body)")
        let missing = try server.request("POST", "/v1/withdraw", json: #"{"device": "phone"}"#, headers: Self.auth)
        #expect(missing.status == 400 && missing.error?.contains("\"id\"") == true, "\(missing.body)")
        let long = String(repeating: "a", count: 65)
        let tooLong = try server.request("POST", "/v1/withdraw", json: #"{"id": "\#(long)"}"#, headers: Self.auth)
        #expect(tooLong.status == 400 && tooLong.error?.hasPrefix("\"id\" must be") == true, "\(tooLong.body)")
        let both = try server.request(
            "POST", "/v1/withdraw", json: #"{"id": "a", "device": "phone", "group": "family"}"#, headers: Self.auth)
        #expect(
            both.status == 400 && both.error == "give \"device\" or \"group\", not both (neither: every device)",
            "\(both.body)")
        let noSecret = try server.request("POST", "/v1/withdraw", json: #"{"id": "build-42", "device": "phone"}"#)
        #expect(noSecret.status == 401, "\(noSecret.body)")
        let nobody = try server.request(
            "POST", "/v1/withdraw", json: #"{"id": "build-42", "device": "nosuch"}"#, headers: Self.auth)
        #expect(nobody.status == 404 && nobody.error?.contains("\"nosuch\"") == true, "\(nobody.body)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(emulator.records().count == 2, "nothing sent for a refused withdrawal")
    }

    @Test("a withdrawal APNs takes for no device is 502: in ntfy's shape on ntfy's routes, the endpoint's on /v1")
    func notDelivered() throws {
        let emulator = try RunningEmulator(["--quiet", "--unregistered", hexToken(3)], environment: setup.environment)
        let env = environment(emulator)
        try BuiltTool.run("register-apns", ["add", "old", hexToken(3)], environment: env).expectSuccess()
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: env).expectSuccess()
        let secret = try setup.directory.write("secret", Self.secret + "\n", mode: 0o600)
        let server = try RunningServe(["--secret-file", secret], environment: env)
        let cleared = try server.request("DELETE", "/old/job-1", headers: Self.auth)
        #expect(cleared.status == 502 && cleared.json?["code"] as? Int == 50200, "\(cleared.body)")
        #expect(cleared.error?.contains("old: Unregistered") == true, "\(cleared.body)")
        let native = try server.request(
            "POST", "/v1/withdraw", json: #"{"id": "build-42", "device": "old"}"#, headers: Self.auth)
        #expect(native.status == 502 && native.json?["code"] == nil, "\(native.body)")
        #expect(native.error?.contains("old: Unregistered") == true, "\(native.body)")
        let records = emulator.waitForRecords(2)
        try #require(records.count == 2, "\(records)")
        Self.expectWithdrawal(records[0], of: try Self.ntfyCollapseID(topic: "old", "job-1"), token: hexToken(3))
        Self.expectWithdrawal(records[1], of: "build-42", token: hexToken(3))
    }

    @Test("ntfy: a sequence id is the collapse id; clear, read and delete withdraw it; a bad one is 400")
    func ntfy() throws {
        let (emulator, server) = try start()
        let collapseID = try Self.ntfyCollapseID(topic: "phone", "job-1")
        let first = try server.request(
            "POST", "/phone", body: Data("started".utf8), headers: Self.auth.merging(["X-Sequence-ID": "job-1"]) { $1 })
        #expect(first.status == 200 && first.json?["sequence_id"] as? String == "job-1", "\(first.body)")
        let second = try server.request(
            "PUT", "/phone/job-1", body: Data("finished".utf8), headers: Self.auth)
        #expect(second.status == 200 && second.json?["sequence_id"] as? String == "job-1", "\(second.body)")
        let byQuery = try server.request(
            "POST", "/phone?sid=job-1", body: Data("again".utf8), headers: Self.auth)
        #expect(byQuery.status == 200, "\(byQuery.body)")
        var records = emulator.waitForRecords(3)
        try #require(records.count == 3, "\(records)")
        #expect(records.allSatisfy { $0["collapse_id"] as? String == collapseID }, "\(records)")
        #expect(records.allSatisfy { $0["push_type"] as? String == "alert" })

        for (method, path, event) in [
            ("PUT", "/phone/job-1/clear", "message_clear"), ("PUT", "/phone/job-1/read", "message_clear"),
            ("DELETE", "/phone/job-1", "message_delete"),
        ] {
            let answer = try server.request(method, path, headers: Self.auth)
            #expect(answer.status == 200, "\(method) \(path): \(answer.body)")
            #expect(answer.json?["event"] as? String == event && answer.json?["topic"] as? String == "phone")
            #expect(answer.json?["sequence_id"] as? String == "job-1" && answer.json?["delivered"] as? Int == 1)
            #expect((answer.json?["id"] as? String)?.count == 12 && answer.json?["time"] is Int, "\(answer.body)")
            #expect(answer.json?["delivered_to"] as? [String] == ["phone"], "\(answer.body)")
        }
        records = emulator.waitForRecords(6)
        try #require(records.count == 6, "\(records)")
        for record in records.dropFirst(3) { Self.expectWithdrawal(record, of: collapseID) }

        // Without a sequence id, the message's own id is one: clearing by it withdraws that message.
        let plain = try server.request("POST", "/phone", body: Data("no sequence".utf8), headers: Self.auth)
        let id = try #require(plain.json?["id"] as? String, "\(plain.body)")
        #expect(plain.json?["sequence_id"] == nil, "\(plain.body)")
        let cleared = try server.request("PUT", "/phone/\(id)/clear", headers: Self.auth)
        #expect(cleared.status == 200, "\(cleared.body)")
        records = emulator.waitForRecords(8)
        try #require(records.count == 8, "\(records)")
        let ownID = try Self.ntfyCollapseID(topic: "phone", id)
        #expect(records[6]["collapse_id"] as? String == ownID, "\(records[6])")
        Self.expectWithdrawal(records[7], of: ownID)
        // The topic is in the collapse id: the same sequence id on another topic is another notification.
        #expect(try Self.ntfyCollapseID(topic: "family", "job-1") != collapseID)

        // Refused: a bad sequence id in each place, an unknown topic, a last segment that is no clear.
        for (method, path, headers) in [
            ("POST", "/phone", ["X-Sequence-ID": "a.b"]), ("POST", "/phone?sequence_id=a.b", [:]),
            ("PUT", "/phone/a.b", [:]), ("PUT", "/phone/a.b/clear", [:]), ("DELETE", "/phone/a.b", [:]),
        ] {
            let bad = try server.request(
                method, path, body: Data("x".utf8), headers: Self.auth.merging(headers) { $1 })
            #expect(bad.status == 400 && bad.error?.hasPrefix("sequence_id \"a.b\" must be") == true, "\(bad.body)")
            #expect(bad.json?["code"] as? Int == 40000, "ntfy's error shape: \(bad.body)")
        }
        let unknownTopic = try server.request("DELETE", "/nosuch/job-1", headers: Self.auth)
        #expect(unknownTopic.status == 404 && unknownTopic.json?["http"] as? Int == 404, "\(unknownTopic.body)")
        let notClear = try server.request("PUT", "/phone/job-1/archive", headers: Self.auth)
        #expect(notClear.status == 404, "\(notClear.body)")
        let noSecret = try server.request("PUT", "/phone/job-1/clear")
        #expect(noSecret.status == 401, "\(noSecret.body)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(emulator.records().count == 8, "nothing sent for a refused request")
    }

    @Test("Bark: delete=1 with id withdraws the collapse id that id was sent with; without id 400")
    func bark() throws {
        let (emulator, server) = try start()
        let pushed = try server.request("GET", "/phone/Build/started?id=build-7", headers: Self.auth)
        #expect(pushed.status == 200, "\(pushed.body)")
        let deleted = try server.request("GET", "/phone/gone?delete=1&id=build-7", headers: Self.auth)
        #expect(deleted.status == 200 && deleted.json?["code"] as? Int == 200, "\(deleted.body)")
        #expect(deleted.json?["message"] as? String == "success" && deleted.json?["delivered"] as? Int == 1)
        // An id longer than APNs' collapse ids is sent as its SHA-256, and withdrawn as the same.
        let long = String(repeating: "n", count: 70)
        let longPush = try server.request(
            "POST", "/push", json: #"{"device_key": "phone", "body": "b", "id": "\#(long)"}"#, headers: Self.auth)
        #expect(longPush.status == 200, "\(longPush.body)")
        let longDelete = try server.request(
            "POST", "/push", json: #"{"device_key": "phone", "delete": 1, "id": "\#(long)"}"#, headers: Self.auth)
        #expect(longDelete.status == 200, "\(longDelete.body)")
        let records = emulator.waitForRecords(4)
        try #require(records.count == 4, "\(records)")
        #expect(records[0]["collapse_id"] as? String == "build-7")
        Self.expectWithdrawal(records[1], of: "build-7")
        let hashed = try sha256Hex(long)
        #expect(records[2]["collapse_id"] as? String == hashed)
        Self.expectWithdrawal(records[3], of: hashed)

        let noID = try server.request("GET", "/phone/gone?delete=1", headers: Self.auth)
        #expect(
            noID.status == 400
                && noID.json?["message"] as? String == "\"delete\" needs \"id\": the id the notification was sent with",
            "\(noID.body)")
        let noIDJSON = try server.request(
            "POST", "/push", json: #"{"device_key": "phone", "delete": "1"}"#, headers: Self.auth)
        #expect(noIDJSON.status == 400 && noIDJSON.json?["code"] as? Int == 400, "\(noIDJSON.body)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(emulator.records().count == 4, "nothing sent for a refused delete")
    }

    @Test("/mcp: the withdraw tool sends the withdrawal and answers as notify does")
    func agentTool() throws {
        let (emulator, server) = try start()
        func call(_ arguments: String) throws -> [String: Any] {
            let answer = try server.request(
                "POST", "/mcp",
                json:
                    #"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "withdraw", "arguments": \#(arguments)}}"#,
                headers: Self.auth.merging(["Accept": "application/json, text/event-stream"]) { $1 })
            #expect(answer.status == 200, "\(answer.body)")
            return try #require(answer.json?["result"] as? [String: Any], "\(answer.body)")
        }
        let result = try call(#"{"id": "build-42", "device": "phone"}"#)
        #expect(result["isError"] == nil || result["isError"] as? Bool == false, "\(result)")
        let structured = result["structuredContent"] as? [String: Any]
        #expect(structured?["summary"] as? String == "Delivered to 1 device (phone).", "\(result)")
        let records = emulator.waitForRecords(1)
        try #require(records.count == 1, "\(records)")
        Self.expectWithdrawal(records[0], of: "build-42")

        let refused = try call(#"{"id": "build-42", "title": "x"}"#)
        #expect(refused["isError"] as? Bool == true, "\(refused)")
        let text = ((refused["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        #expect(text.hasPrefix("unknown argument \"title\"; withdraw takes device, group, id"), "\(text)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(emulator.records().count == 1, "nothing sent for a refused call")
    }
}
