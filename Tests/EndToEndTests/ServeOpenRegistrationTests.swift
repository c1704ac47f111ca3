import Foundation
import Testing

/// What a peer of an `--open-registration` network can do without the secret on the built
/// `register-apns serve`: register its own device, and nothing that changes what other people's
/// devices show, or tells it whether another device exists.
@Suite("register-apns serve --open-registration: a peer registers only itself")
struct ServeOpenRegistrationTests {
    static let secret = "open-registration-secret-0123456789abcdef"
    static let auth = ["Authorization": "Bearer \(secret)"]

    let setup: ProviderSetup
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    func serve(_ emulator: RunningEmulator? = nil) throws -> RunningServe {
        var env = emulator?.asAPNs(for: setup.environment) ?? setup.environment
        env["APNS_STATE_FILE"] = stateFile
        let secretFile = try setup.directory.write("secret", Self.secret + "\n")
        return try RunningServe(
            ["--secret-file", secretFile, "--open-registration", "127.0.0.0/8"], environment: env)
    }

    func state() throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
    }

    func displayName(cwd: String) throws -> String? {
        let agents = try state()["agents"] as? [String: [String: Any]]
        return agents?[try sha256Hex(cwd)]?["display_name"] as? String
    }

    func post(
        _ server: RunningServe, _ path: String, _ object: [String: Any], headers: [String: String] = [:]
    )
        throws -> HTTPExchange
    {
        try server.request("POST", path, body: try JSONSerialization.data(withJSONObject: object), headers: headers)
    }

    @Test("only a subscription with the secret names an agent: a peer's agent_display_name never titles replies")
    func displayNameNeedsTheSecret() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let server = try serve(emulator)
        let cwd = "/home/ada/agents/helper"
        func subscribe(
            _ device: String, _ token: Int, _ name: String, headers: [String: String] = [:]
        ) throws
            -> HTTPExchange
        {
            try post(
                server, "/registerSubscription",
                ["cwd": cwd, "installation_id": device, "apns_token": hexToken(token), "agent_display_name": name],
                headers: headers)
        }
        var recorded = 0
        /// The titles of the notifications one reply of the agent sends.
        func titlesOfReply() throws -> [String] {
            let sent = try post(server, "/triggerReplyFinished", ["cwd": cwd], headers: Self.auth)
            #expect(sent.status == 200, "\(sent.body)")
            let records = emulator.waitForRecords(recorded + (sent.json?["devices_notified"] as? Int ?? 0))
            defer { recorded = records.count }
            return records.dropFirst(recorded).map { record in
                let aps = (record["payload"] as? [String: Any])?["aps"] as? [String: Any]
                return (aps?["alert"] as? [String: Any])?["title"] as? String ?? "-"
            }
        }

        // A stranger on the open network guesses the cwd and subscribes first: it is subscribed,
        // but its name is not recorded, and the reply is titled by the cwd's last component.
        let stranger = try subscribe("peer-phone", 52, "Pwned")
        #expect(stranger.status == 200 && stranger.json?["status"] as? String == "subscribed", "\(stranger.body)")
        #expect(try displayName(cwd: cwd) == nil, "a peer without the secret named the agent")
        #expect(try titlesOfReply() == ["helper"])

        // The app subscribes with the secret: its name is recorded, and a stranger's later
        // subscriptions do not take it back.
        #expect(try subscribe("ada-phone", 51, "Helper", headers: Self.auth).status == 200)
        #expect(try displayName(cwd: cwd) == "Helper")
        #expect(try subscribe("peer-phone", 52, "Pwned again").status == 200)
        #expect(try displayName(cwd: cwd) == "Helper", "a peer renamed the agent every subscriber sees")
        #expect(try titlesOfReply() == ["Helper", "Helper"])

        // With the secret, the latest name wins, as in the design.
        #expect(try subscribe("ada-phone", 51, "Aide", headers: Self.auth).status == 200)
        #expect(try displayName(cwd: cwd) == "Aide")
    }

    @Test("without the secret, /gateway/messages changes only the briefing of the device whose token it holds")
    func briefingOfOthersDevice() throws {
        let server = try serve()
        let briefing: [String: Any] = ["type": "briefing_config", "enabled": true, "time": "03:00", "timezone": "UTC"]
        #expect(
            try post(
                server, "/register-apns", ["device_token": "ada-phone", "apns_token": hexToken(61)], headers: Self.auth
            ).status == 200)
        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))

        // By device id: the same refusal whether the device exists or not.
        let existing = try post(server, "/gateway/messages", briefing.merging(["device_id": "ada-phone"]) { $1 })
        let missing = try post(server, "/gateway/messages", briefing.merging(["device_id": "nobody-here"]) { $1 })
        #expect(existing.status == 401 && missing.status == 401, "\(existing.body) \(missing.body)")
        #expect(existing.json?["message"] as? String == missing.json?["message"] as? String)
        #expect((existing.json?["message"] as? String)?.contains("by its token") == true, "\(existing.body)")
        // A device id in "token" is not a token.
        let idAsToken = try post(server, "/gateway/messages", briefing.merging(["token": "ada-phone"]) { $1 })
        #expect(idAsToken.status == 401, "\(idAsToken.body)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before, "nothing was changed")

        // Its own device, by the token it registered: served as before.
        let token = hexToken(62)
        let registered = try post(
            server, "/gateway/messages", ["type": "device_token", "token": token, "platform": "ios"])
        #expect(registered.json?["type"] as? String == "device_token_confirmed", "\(registered.body)")
        let own = try post(server, "/gateway/messages", briefing.merging(["token": token]) { $1 })
        #expect(own.status == 200 && own.json?["type"] as? String == "ack", "\(own.body)")
        // With the secret, a device id names the device as before.
        let trusted = try post(
            server, "/gateway/messages", briefing.merging(["device_id": "ada-phone"]) { $1 }, headers: Self.auth)
        #expect(trusted.status == 200, "\(trusted.body)")
    }
}
