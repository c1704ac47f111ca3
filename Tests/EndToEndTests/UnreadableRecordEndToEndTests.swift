import Foundation
import Testing

/// A devices file with one record edited by hand into something the tools cannot use (a
/// `content_key` that is not 32 bytes), among good devices: the built `register-apns serve`,
/// `register-apns`, `send-push` and `apns-jwt check` keep working for every other device, name the
/// bad one, refuse it alone, and never rewrite or drop it.
@Suite("a devices file with one unreadable record: the rest keeps working, the record is kept")
struct UnreadableRecordEndToEndTests {
    static let secret = "s3cret-for-the-unreadable-record-tests"
    static let bearer = ["Authorization": "Bearer \(secret)"]
    /// The bad record, as it stands in the file: its key is 5 bytes.
    static let badRecord = #"{"token": "\#(hexToken(2))", "groups": ["family"], "content_key": "c2hvcnQ="}"#

    let setup: ProviderSetup
    let emulator: RunningEmulator
    let environment: [String: String]
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let state = setup.directory.file("state")
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        stateFile = state + "/devices.json"
        // `beta`'s time zone is none the tz database has: a value the tools tolerate (quiet hours
        // fall back to the configured zone), so its record stays usable.
        _ = try setup.directory.write(
            "state/devices.json",
            """
            {"version": 1, "devices": {
              "alpha": {"token": "\(hexToken(1))", "groups": ["family"]},
              "bad": \(Self.badRecord),
              "beta": {"token": "\(hexToken(3))", "groups": ["family"], "timezone": "Mars/Olympus"}
            }}

            """)
        var environment = emulator.asAPNs(for: setup.environment)
        environment["APNS_STATE_FILE"] = stateFile
        self.environment = environment
    }

    func stateText() throws -> String { try String(contentsOfFile: stateFile, encoding: .utf8) }

    @Test("serve names it, registers and sends to the others, refuses it alone naming the field")
    func serve() throws {
        let secretFile = try setup.directory.write("serve.secret", Self.secret + "\n")
        let server = try RunningServe(["--secret-file", secretFile], environment: environment)
        #expect(
            server.stderr.contains(
                "register-apns serve: warning: device \"bad\" in \(stateFile) cannot be used: "
                    + "\"content_key\": a content key is 32 bytes, not 5"),
            "\(server.stderr)")

        // Registration works, and a registration of the bad device is refused rather than rewriting it.
        let registered = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "gamma", "apns_token": "\#(hexToken(4))"}"#,
            headers: Self.bearer)
        #expect(registered.status == 200, "\(registered.body)")
        let again = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "bad", "apns_token": "\#(hexToken(2))"}"#,
            headers: Self.bearer)
        #expect(again.status == 409 && again.error?.contains("\"content_key\"") == true, "\(again.body)")

        // A group with it: the others get the notification; the answer names them.
        let group = try server.request("POST", "/family", body: Data("hi".utf8), headers: Self.bearer)
        #expect(group.status == 200, "\(group.body)")
        #expect(group.json?["devices"] as? Int == 3 && group.json?["delivered_to"] as? [String] == ["alpha", "beta"])
        #expect(
            Set(emulator.waitForRecords(2).compactMap { $0["device_token"] as? String }) == [hexToken(1), hexToken(3)])
        // Every device: the bad one alone fails, with a reason naming the field.
        let all = try server.request(
            "POST", "/api/v1/notifications/send", json: #"{"title": "t"}"#, headers: Self.bearer)
        let results = try #require(all.json?["results"] as? [[String: Any]], "\(all.body)")
        let failed = results.filter { $0["success"] as? Bool != true }
        #expect(results.count == 4 && failed.map { $0["device_id"] as? String } == ["bad"], "\(all.body)")
        #expect((failed.first?["reason"] as? String)?.contains("\"content_key\"") == true, "\(all.body)")
        // The bad one alone: refused, naming the field.
        let alone = try server.request("POST", "/bad", body: Data("hi".utf8), headers: Self.bearer)
        #expect(alone.status == 502 && alone.error?.contains("\"content_key\"") == true, "\(alone.body)")
        let byID = try server.request(
            "POST", "/api/v1/notifications/send/bad", json: #"{"title": "t"}"#, headers: Self.bearer)
        #expect(
            byID.json?["success"] as? Bool == false
                && (byID.json?["reason"] as? String)?.contains("content_key") == true)
        #expect(emulator.records().count == 5, "nothing went to the bad device's token")
        #expect(!emulator.records().contains { $0["device_token"] as? String == hexToken(2) })

        // The file was rewritten for gamma and for the deliveries: the bad record is as it was.
        let text = try stateText()
        #expect(text.contains("\"bad\": " + Self.badRecord) && text.contains("\"gamma\""), "\(text)")
        #expect(server.stderr.components(separatedBy: "device \"bad\"").count == 2, "warned once: \(server.stderr)")
    }

    @Test("register-apns and send-push name it, list and check flag it, a send refuses it alone; remove ends it")
    func tools() throws {
        let listed = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("register-apns: warning: device \"bad\" in \(stateFile) cannot be used"))
        let badRow = listed.stdout.split(separator: "\n").first { $0.hasPrefix("bad ") }.map(String.init) ?? ""
        #expect(listed.stdout.hasPrefix("DEVICE ID") && listed.stdout.contains("UNREADABLE"), "\(listed.stdout)")
        #expect(badRow.contains("\"content_key\"") && badRow.contains("family"), "\(listed.stdout)")
        let json = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
        #expect(json.stdout.split(separator: "\n").count == 2 && !json.stdout.contains("\"bad\""), "\(json.stdout)")
        let checked = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(checked.stdout.contains("device \"bad\" cannot be used: \"content_key\""), "\(checked.stdout)")

        let alone = try BuiltTool.run("send-push", ["--device", "bad", "--title", "t"], environment: environment)
        #expect(alone.status == 65, "\(alone.stdout)\(alone.stderr)")
        #expect(alone.stdout.contains("refused") && alone.stdout.contains("\"content_key\""), "\(alone.stdout)")
        let group = try BuiltTool.run("send-push", ["--group", "family", "--title", "t"], environment: environment)
        #expect(group.status == 1, "\(group.stdout)\(group.stderr)")
        #expect(group.stderr.contains("2 delivered, 1 failed (1 refused: record unreadable)"), "\(group.stderr)")
        let added = try BuiltTool.run("register-apns", ["add", "bad", hexToken(2)], environment: environment)
        #expect(added.status == 65 && added.stderr.contains("\"content_key\""), "\(added.stderr)")
        #expect(try stateText().contains("\"bad\": " + Self.badRecord), "the record was rewritten")

        let removed = try BuiltTool.run("register-apns", ["remove", "bad"], environment: environment)
        #expect(removed.status == 0 && removed.stdout.contains("removed bad"), "\(removed.stdout)\(removed.stderr)")
        let after = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(!after.stdout.contains("bad") && !after.stderr.contains("warning"), "\(after.stdout)\(after.stderr)")
    }
}
