import Foundation
import Testing

/// ntfy's and Bark's publish protocols on `register-apns serve`, end to end: Apprise from PyPI (a
/// client nobody here wrote) over `ntfy://`, `ntfys://` (serve's TLS listener, its certificate
/// trusted through `REQUESTS_CA_BUNDLE`) and `bark://`, and the exact requests Uptime Kuma and
/// Shoutrrr send (`Fixtures/Notifiers/`, replayed with curl), through the real server to the real
/// `apns-emulator`, whose record shows what reached APNs.
@Suite("register-apns serve: ntfy and Bark end to end (Apprise, Uptime Kuma, Shoutrrr)")
struct NotifierEndToEndTests {
    static let secret = "s3cret-for-the-notifier-tests"
    let setup: ProviderSetup
    let emulator: RunningEmulator
    let environment: [String: String]
    let secretFile: String

    init() throws {
        setup = try ProviderSetup()
        emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = setup.directory.file("state/devices.json")
        self.environment = environment
        secretFile = try setup.directory.write("serve.secret", Self.secret + "\n", mode: 0o600)
    }

    /// A server with the secret, and two devices in the group `family`: `phone-1` (token 1) and
    /// `ipad-1` (token 2), registered through the server itself.
    func serve(_ arguments: [String] = [], caFile: String? = nil) throws -> RunningServe {
        let server = try RunningServe(["--secret-file", secretFile] + arguments, environment: environment)
        for (id, n) in [("phone-1", 1), ("ipad-1", 2)] {
            let answer = try server.request(
                "POST", "/register-apns",
                json: #"{"device_token": "\#(id)", "apns_token": "\#(hexToken(n))", "groups": ["family"]}"#,
                headers: ["Authorization": "Bearer \(Self.secret)"], caFile: caFile)
            #expect(answer.status == 200, "\(answer.body)")
        }
        return server
    }

    /// Runs `apprise -vv -t TITLE -b BODY URL` from the test virtual environment.
    func apprise(_ url: String, title: String, body: String, environment: [String] = []) throws -> ToolResult {
        try BuiltTool.runSystem("env", environment + ["apprise", "-vv", "-t", title, "-b", body, url])
    }

    /// The emulator's records from the `count`-th on (waiting for them), by device token.
    func newRecords(after count: Int, expecting added: Int) -> [String: [String: Any]] {
        let records = emulator.waitForRecords(count + added)
        var byToken: [String: [String: Any]] = [:]
        for record in records.dropFirst(count) {
            if let token = record["device_token"] as? String { byToken[token] = record }
        }
        return byToken
    }

    static func aps(_ record: [String: Any]?) -> [String: Any] {
        ((record?["payload"] as? [String: Any])?["aps"] as? [String: Any]) ?? [:]
    }

    @Test("Apprise ntfy:// sends to the topic's group: title, body, tags, priority, click")
    func appriseNtfy() throws {
        let server = try serve()
        let url =
            "ntfy://apprise:\(Self.secret)@127.0.0.1:\(server.port)/family"
            + "?priority=high&tags=warning,backup&click=https://example.com/backup"
        let run = try apprise(url, title: "Backup", body: "Nightly backup failed")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let records = newRecords(after: 0, expecting: 2)
        #expect(Set(records.keys) == [hexToken(1), hexToken(2)], "both devices of family: \(records.keys)")
        let record = records[hexToken(1)]
        let aps = Self.aps(record)
        #expect(aps["alert"] as? NSDictionary == ["title": "⚠️ Backup", "body": "Nightly backup failed\nTags: backup"])
        #expect(aps["interruption-level"] as? String == "time-sensitive", "high is time-sensitive: \(aps)")
        #expect((record?["payload"] as? [String: Any])?["url"] as? String == "https://example.com/backup")
        #expect(server.stderr.contains("POST / 200"), "Apprise publishes JSON to the root: \(server.stderr)")
    }

    @Test("Apprise ntfys:// and barks:// over serve's TLS listener, its certificate trusted")
    func appriseNtfys() throws {
        let (certificate, key) = try setup.directory.selfSignedCertificate()
        let server = try serve(["--tls-cert", certificate, "--tls-key", key], caFile: certificate)
        #expect(server.scheme == "https")
        let url = "ntfys://apprise:\(Self.secret)@127.0.0.1:\(server.port)/phone-1?priority=min"
        let run = try apprise(
            url, title: "Over TLS", body: "hello", environment: ["REQUESTS_CA_BUNDLE=\(certificate)"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let record = newRecords(after: 0, expecting: 1)[hexToken(1)]
        let aps = Self.aps(record)
        #expect(aps["alert"] as? NSDictionary == ["title": "Over TLS", "body": "hello"], "\(aps)")
        #expect(aps["interruption-level"] as? String == "passive", "min is passive")
        // Without the CA, Apprise refuses the server (the check is real).
        let untrusted = try apprise(url, title: "x", body: "y")
        #expect(untrusted.status != 0)
        #expect(emulator.records().count == 1)
        // Bark over the same listener: barks://.
        let bark = try apprise(
            "barks://apprise:\(Self.secret)@127.0.0.1:\(server.port)/ipad-1", title: "Bark", body: "over TLS",
            environment: ["REQUESTS_CA_BUNDLE=\(certificate)"])
        #expect(bark.status == 0, "\(bark.stdout)\(bark.stderr)")
        let barkRecord = newRecords(after: 1, expecting: 1)[hexToken(2)]
        #expect(Self.aps(barkRecord)["alert"] as? NSDictionary == ["title": "Bark", "body": "over TLS"])
    }

    @Test("Apprise bark:// sends to the key's device: level, url, badge, sound, group, collapse id")
    func appriseBark() throws {
        let server = try serve()
        let url =
            "bark://apprise:\(Self.secret)@127.0.0.1:\(server.port)/phone-1"
            + "?level=passive&click=https://example.com/ci&badge=2&sound=minuet&group=ci&id=build-42"
        let run = try apprise(url, title: "CI", body: "build 42 passed")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let records = newRecords(after: 0, expecting: 1)
        #expect(Array(records.keys) == [hexToken(1)], "only the key's device")
        let record = records[hexToken(1)]
        let aps = Self.aps(record)
        #expect(aps["alert"] as? NSDictionary == ["title": "CI", "body": "build 42 passed"], "\(aps)")
        #expect(aps["interruption-level"] as? String == "passive" && aps["badge"] as? Int == 2)
        #expect(aps["sound"] as? String == "minuet.caf" && aps["thread-id"] as? String == "ci", "\(aps)")
        #expect(record?["collapse_id"] as? String == "build-42")
        #expect((record?["payload"] as? [String: Any])?["url"] as? String == "https://example.com/ci")
        // A group as the key reaches its devices.
        let group = try apprise(
            "bark://apprise:\(Self.secret)@127.0.0.1:\(server.port)/family", title: "All", body: "of you")
        #expect(group.status == 0, "\(group.stdout)\(group.stderr)")
        #expect(newRecords(after: 1, expecting: 2).count == 2)
    }

    @Test("a wrong secret, no secret, an unknown topic: refused, nothing sent; Apprise reports the failure")
    func refusals() throws {
        let server = try serve()
        for url in [
            "ntfy://apprise:wrong@127.0.0.1:\(server.port)/family",
            "bark://apprise:wrong@127.0.0.1:\(server.port)/phone-1",
            "ntfy://127.0.0.1:\(server.port)/family", "ntfy://apprise:\(Self.secret)@127.0.0.1:\(server.port)/nobody",
        ] {
            let run = try apprise(url, title: "x", body: "y")
            #expect(run.status != 0, "\(url): \(run.stdout)\(run.stderr)")
        }
        let wrong = try server.request(
            "POST", "/family", body: Data("hi".utf8),
            headers: ["Authorization": "Basic " + Data("u:wrong".utf8).base64EncodedString()])
        #expect(wrong.status == 401 && wrong.json?["http"] as? Int == 401, "\(wrong.body)")
        let delayed = try server.request(
            "POST", "/family", body: Data("later".utf8),
            headers: ["Authorization": "Bearer \(Self.secret)", "X-Delay": "30m"])
        #expect(delayed.status == 400 && delayed.json?["error"] as? String != nil, "\(delayed.body)")
        #expect((delayed.json?["error"] as? String)?.contains("scheduled delivery") == true)
        // Reserved names keep their own routes.
        let metrics = try server.request("POST", "/metrics", headers: ["Authorization": "Bearer \(Self.secret)"])
        #expect(metrics.status == 405 && metrics.headers["allow"] == "GET, HEAD")
        #expect(emulator.records().isEmpty, "nothing reached APNs")
    }

    @Test("Bark-shaped paths answered 404 or 405 are logged without their texts")
    func unmatchedBarkPathsAreNotLogged() throws {
        let server = try serve()
        let auth = ["Authorization": "Bearer \(Self.secret)"]
        let deleted = try server.request("DELETE", "/phone-1/TitleSecret/BodySecret", headers: auth)
        #expect(deleted.status == 405, "\(deleted.body)")
        let deep = try server.request("GET", "/phone-1/A/B/C/DeepSecret", headers: auth)
        #expect(deep.status == 404, "\(deep.body)")
        // The access log's line is written before the answer is sent.
        let log = server.stderr
        #expect(log.contains("DELETE /phone-1/…/… 405") && log.contains("GET /phone-1/…/…/…/… 404"), "\(log)")
        for text in ["TitleSecret", "BodySecret", "DeepSecret"] {
            #expect(!server.stderr.contains(text), "\(text) in the log: \(server.stderr)")
        }
        #expect(emulator.records().isEmpty, "nothing reached APNs")
    }

    @Test("a name is a device or a group: a peer cannot take a group's name, and the answer names whom it reached")
    func nameIsADeviceOrAGroup() throws {
        let server = try serve(["--open-registration", "127.0.0.0/8"])
        let stateFile = try #require(environment["APNS_STATE_FILE"])
        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let peer = hexToken(9)
        // A peer without the secret registers a device named after the group `family`, on every
        // way in, or puts its device in a group named after a device: 409, nothing written.
        for (path, body) in [
            ("/register-apns", #"{"device_token": "family", "apns_token": "\#(peer)"}"#),
            ("/api/v1/devices/register", #"{"device_token": "family", "apns_token": "\#(peer)"}"#),
            ("/hooks/ios-device", #"{"action": "register", "device_token": "family", "apns_token": "\#(peer)"}"#),
            ("/registerSubscription", #"{"cwd": "/srv/a", "installation_id": "family", "apns_token": "\#(peer)"}"#),
            ("/gateway/messages", #"{"type": "device_token", "device_id": "family", "token": "\#(peer)"}"#),
            ("/register-apns", #"{"device_token": "peer", "apns_token": "\#(peer)", "groups": ["phone-1"]}"#),
        ] {
            let answer = try server.request("POST", path, json: body)
            #expect(answer.status == 409, "\(path): \(answer.body)")
            #expect(answer.error?.contains("a name is a device or a group, never both") == true, "\(answer.body)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before, "a refused registration wrote")
        #expect(
            server.stderr.contains("POST /register-apns 409"), "the access log has the refusals: \(server.stderr)")

        // So the group's name still reaches its members, and the answer names them.
        let bearer = ["Authorization": "Bearer \(Self.secret)"]
        let ntfy = try server.request("POST", "/family", body: Data("hi".utf8), headers: bearer)
        #expect(ntfy.status == 200 && ntfy.json?["delivered"] as? Int == 2, "\(ntfy.body)")
        #expect(ntfy.json?["delivered_to"] as? [String] == ["ipad-1", "phone-1"], "\(ntfy.body)")
        let bark = try server.request(
            "POST", "/push", json: #"{"device_key": "phone-1", "body": "b"}"#, headers: bearer)
        #expect(bark.status == 200 && bark.json?["delivered_to"] as? [String] == ["phone-1"], "\(bark.body)")
        let hook = try server.request("POST", "/hooks/ios-notify", json: #"{"title": "t"}"#, headers: bearer)
        #expect(hook.json?["delivered_to"] as? [String] == ["ipad-1", "phone-1"], "\(hook.body)")
        #expect(newRecords(after: 0, expecting: 5).count == 2, "only the two devices' tokens reached APNs")
        #expect(!emulator.records().contains { $0["device_token"] as? String == peer })
    }

    @Test("a registry edited by hand so that a name is a device and a group: ntfy and Bark refuse it, sending nothing")
    func ambiguousNameRefused() throws {
        let server = try serve()
        let stateFile = try #require(environment["APNS_STATE_FILE"])
        // Another device, named after the group, added by hand: `family` is now both.
        var state = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
        var devices = try #require(state["devices"] as? [String: Any])
        devices["family"] = ["token": hexToken(9), "groups": []]
        state["devices"] = devices
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: stateFile))
        let bearer = ["Authorization": "Bearer \(Self.secret)"]
        let ntfy = try server.request("POST", "/family", body: Data("hi".utf8), headers: bearer)
        #expect(ntfy.status == 409 && ntfy.json?["http"] as? Int == 409, "\(ntfy.body)")
        #expect(ntfy.error?.contains("topic \"family\" names both a device and a group") == true, "\(ntfy.body)")
        let bark = try server.request("GET", "/family/hello", headers: bearer)
        #expect(bark.status == 409 && bark.json?["code"] as? Int == 409, "\(bark.body)")
        #expect(bark.error?.contains("device_key \"family\" names both") == true, "\(bark.body)")
        #expect(emulator.records().isEmpty, "nothing reached APNs")
        // `register-apns list` and `apns-jwt check` name it.
        let listed = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(
            listed.status == 0 && listed.stderr.contains("\"family\" is both a device id and a group"),
            "\(listed.stderr)")
        let checked = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(checked.stdout.contains("\"family\" is both a device id and a group"), "\(checked.stdout)")
    }

    /// One request of `Fixtures/Notifiers/`.
    struct Fixture {
        let name: String
        let object: [String: Any]

        static func all() throws -> [Fixture] {
            let folder = RepositoryFiles.path("Tests/EndToEndTests/Fixtures/Notifiers")
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
                .map { name in
                    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
                    return Fixture(
                        name: name, object: try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                    )
                }
        }
    }

    @Test("the exact requests Uptime Kuma and Shoutrrr send, replayed: their answers, and what reached APNs")
    func clientFixtures() throws {
        let server = try serve()
        let basic = Data("client:\(Self.secret)".utf8).base64EncodedString()
        let fixtures = try Fixture.all()
        #expect(fixtures.count >= 6)
        for fixture in fixtures {
            let object = fixture.object
            func substituted(_ text: String) -> String {
                text.replacingOccurrences(of: "{{BASIC}}", with: basic).replacingOccurrences(
                    of: "{{SECRET}}", with: Self.secret)
            }
            let headers = (object["headers"] as? [String: String] ?? [:]).mapValues(substituted)
            let body = (object["body"] as? String).map { Data(substituted($0).utf8) }
            let expect = try #require(object["expect"] as? [String: Any])
            let before = emulator.records().count
            let answer = try server.request(
                try #require(object["method"] as? String), try #require(object["path"] as? String), body: body,
                headers: headers)
            #expect(answer.status == expect["status"] as? Int, "\(fixture.name): \(answer.status) \(answer.body)")
            for (key, value) in expect["answer"] as? [String: Any] ?? [:] {
                #expect(
                    (answer.json?[key] as? NSObject) == (value as? NSObject),
                    "\(fixture.name): \(key) in \(answer.body)")
            }
            guard answer.status == 200 else {
                #expect(emulator.records().count == before, "\(fixture.name): a refusal sends nothing")
                continue
            }
            let added = (expect["answer"] as? [String: Any])?["devices"] as? Int ?? 1
            let records = newRecords(after: before, expecting: added)
            #expect(records.count == added, "\(fixture.name): \(records.keys)")
            let record = records[hexToken(1)]
            let payload = record?["payload"] as? [String: Any]
            let aps = Self.aps(record)
            #expect(aps["alert"] as? NSDictionary == expect["alert"] as? NSDictionary, "\(fixture.name): \(aps)")
            #expect(
                (aps["interruption-level"] as? String) == (expect["interruption-level"] as? String),
                "\(fixture.name): \(aps)")
            #expect((payload?["url"] as? String) == (expect["url"] as? String), "\(fixture.name): \(payload ?? [:])")
            if let thread = expect["thread-id"] as? String {
                #expect(aps["thread-id"] as? String == thread, "\(fixture.name): \(aps)")
            }
            if let sound = expect["sound"] as? String {
                #expect(aps["sound"] as? String == sound, "\(fixture.name): \(aps)")
            }
            if let badge = expect["badge"] as? Int {
                #expect(aps["badge"] as? Int == badge, "\(fixture.name): \(aps)")
            }
        }
        // Bark's path forms carry the notification's text in the path: the access log leaves it out.
        #expect(server.stderr.contains("GET /phone-1/…/… 200"), "\(server.stderr)")
        #expect(
            !server.stderr.contains("Monitor%20Down") && !server.stderr.contains("%5BHome%20Assistant"),
            "\(server.stderr)")
    }
}
