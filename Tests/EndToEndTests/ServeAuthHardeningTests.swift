import Foundation
import Testing

/// What `register-apns serve` checks of its secret, its listen address and the clients that fail
/// to authenticate, and what its access log leaves out: the built server, curl, real files.
@Suite("register-apns serve: secrets, loopback, failed authentications, the access log")
struct ServeAuthHardeningTests {
    let setup: ProviderSetup
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    var environment: [String: String] {
        var env = setup.environment
        env["APNS_STATE_FILE"] = stateFile
        return env
    }

    @Test("--no-auth checks the addresses the host resolves to, not its name")
    func noAuthResolvesTheHost() throws {
        for host in ["127.attacker.invalid", "localhost.attacker.invalid", "192.0.2.1"] {
            let refused = try BuiltTool.run(
                "register-apns", ["serve", "--no-auth", "--listen", "\(host):0"], environment: environment)
            #expect(refused.status == 64, "\(host): exit \(refused.status): \(refused.stderr)")
            #expect(refused.stderr.contains("--no-auth is only allowed on a loopback address"), "\(refused.stderr)")
        }
        for listen in ["localhost:0", "127.0.0.1:0"] {
            let server = try RunningServe(["--no-auth", "--listen", listen], environment: environment)
            #expect(server.terminate() == 0, "\(listen): \(server.stderr)")
        }
    }

    @Test("failed authentications spend an allowance: past --rate-limit a minute the answer is 429")
    func failedAuthenticationsAreLimited() throws {
        let secret = try setup.directory.write("secret", "a-secret-long-enough-to-be-random-0123456789\n")
        let server = try RunningServe(["--secret-file", secret, "--rate-limit", "3"], environment: environment)
        var statuses: [Int] = []
        for index in 0..<5 {
            let headers = index % 2 == 0 ? ["Authorization": "Bearer guess-\(index)"] : [:]
            statuses.append(try server.request("GET", "/api/v1/devices", headers: headers).status)
        }
        #expect(statuses == [401, 401, 401, 429, 429], "\(statuses)")
        let limited = try server.request("GET", "/metrics", headers: ["Authorization": "Bearer guess-again"])
        #expect(limited.status == 429 && limited.headers["retry-after"] != nil, "\(limited.headers)")
        #expect(limited.error?.contains("too many failed authentications") == true, "\(limited.body)")
        #expect(try server.request("GET", "/health").status == 200, "the health checks need no secret")
    }

    @Test("the access log masks device tokens in paths written percent-encoded too")
    func percentEncodedTokensMasked() throws {
        let server = try RunningServe(["--no-auth"], environment: environment)
        let token = hexToken(41)
        let encoded = token.utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
        let partly = "%" + String(token.utf8.first!, radix: 16) + token.dropFirst()
        for path in ["/api/v1/devices/\(encoded)", "/api/v1/devices/\(partly)"] {
            let answer = try server.request("DELETE", path)
            #expect(answer.status == 404, "\(answer.body)")
        }
        let log = server.stderr
        #expect(!log.contains(token) && !log.contains(encoded) && !log.contains(String(token.dropFirst())), "\(log)")
        #expect(log.components(separatedBy: "DELETE /api/v1/devices/\(maskedToken(token)) 404").count == 3, "\(log)")
    }

    @Test("a secret file written with CRLF authenticates; one of whitespace only is refused with exit 78")
    func secretFileLineEnds() throws {
        let secret = "crlf-secret-long-enough-to-be-random-0123456789"
        let crlf = try setup.directory.write("crlf.secret", secret + "\r\n")
        let server = try RunningServe(["--secret-file", crlf], environment: environment)
        let answer = try server.request("GET", "/api/v1/devices", headers: ["Authorization": "Bearer \(secret)"])
        #expect(answer.status == 200, "\(answer.body)")

        for (name, text) in [("blank.secret", " \t \n"), ("padded.secret", " \(secret)\n")] {
            let file = try setup.directory.write(name, text)
            let refused = try BuiltTool.run(
                "register-apns", ["serve", "--listen", "127.0.0.1:0", "--secret-file", file], environment: environment)
            #expect(refused.status == 78, "\(name): exit \(refused.status): \(refused.stderr)")
            #expect(refused.stderr.contains("--secret-file \(file)") && refused.stderr.contains("whitespace"))
        }
    }

    @Test("server_key is the SHA-256 the app matches only for a long secret, and it is never a credential")
    func serverKeyNeedsALongSecret() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let secret = "proxy-chat-secret-" + String(repeating: "7f3a", count: 8)
        let file = try setup.directory.write("long.secret", secret + "\n")
        let server = try RunningServe(["--secret-file", file], environment: emulator.asAPNs(for: environment))
        let auth = ["Authorization": "Bearer \(secret)"]
        let cwd = "/home/ada/agents/helper"
        try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "\#(cwd)", "installation_id": "ada-phone", "apns_token": "\#(hexToken(71))"}"#,
            headers: auth)
        let sent = try server.request("POST", "/triggerReplyFinished", json: #"{"cwd": "\#(cwd)"}"#, headers: auth)
        #expect(sent.json?["devices_notified"] as? Int == 1, "\(sent.body)")
        let payload = try #require(emulator.waitForRecords(1).first?["payload"] as? [String: Any])
        let serverKey = try #require(payload["server_key"] as? String, "\(payload)")
        #expect(serverKey == (try sha256Hex(secret)), "the app hashes the secret it stores and compares")
        let replayed = try server.request("GET", "/api/v1/devices", headers: ["Authorization": "Bearer \(serverKey)"])
        #expect(replayed.status == 401, "the server_key of a payload is not the secret")
        #expect(!server.stderr.contains("shorter than"))

        let short = try setup.directory.write("short.secret", "s3cret-for-tests\n")
        let warned = try RunningServe(["--secret-file", short], environment: environment)
        #expect(warned.stderr.contains("shorter than 32 characters") && warned.stderr.contains("server_key"))
    }
}
