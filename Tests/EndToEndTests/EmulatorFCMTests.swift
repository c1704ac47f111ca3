import Foundation
import Testing

/// `apns-emulator` playing Google's side of FCM HTTP v1, checked with clients nobody here wrote:
/// google-auth (Google's own Python library for service accounts) gets an access token from the
/// emulator's `/token` with the service account file the emulator wrote, and requests (PyPI) sends
/// with it (Tests/Tools/google_auth_fcm_client.py). Both speak HTTP/1.1 over TLS; curl checks the
/// same routes over HTTP/2.
@Suite("apns-emulator as FCM")
struct EmulatorFCMTests {
    static let script = RepositoryFiles.path("Tests/Tools/google_auth_fcm_client.py")
    static let device = "dK3x9Yv0QxS2bP1cLmN4oA:APA91b" + String(repeating: "Fz7_-q", count: 24)
    static let unregistered = "eL4y0Zw1RyT3cQ2dMnO5pB:APA91b" + String(repeating: "Gy8-_r", count: 24)
    static let busy = "fM5z1Ax2SzU4dR3eNoP6qC:APA91b" + String(repeating: "Hz9_-s", count: 24)
    static let uninstalled = "gN6a2By3TaV5eS4fOpQ7rD:APA91b" + String(repeating: "Ia0-_t", count: 24)

    /// The service account file the emulator keeps beside its CA file.
    static func accountPath(_ emulator: RunningEmulator) -> String {
        URL(fileURLWithPath: emulator.caPath).deletingLastPathComponent().appendingPathComponent(
            "fcm-service-account.json"
        ).path
    }

    func runClient(_ emulator: RunningEmulator, scripted: [String] = []) throws -> [[String: Any]] {
        let result = try BuiltTool.runSystem(
            "env",
            [
                "REQUESTS_CA_BUNDLE=\(emulator.caPath)", "python3", Self.script, emulator.baseURL,
                Self.accountPath(emulator),
            ]
                + [Self.device] + scripted)
        #expect(result.status == 0, "\(result.stderr)")
        return jsonLines(result.stdout)
    }

    @Test("google-auth gets a token from the emulator; sends are answered 200, bad messages 400 as Google answers")
    func googleAuth() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let steps = try runClient(emulator)
        #expect(steps.map { $0["step"] as? String } == ["token", "good", "bad", "unknown"], "\(steps)")
        #expect(steps.first?["valid"] as? Bool == true)
        #expect(steps[1]["status"] as? Int == 200)
        let name = (steps[1]["body"] as? [String: Any])?["name"] as? String
        #expect(name?.hasPrefix("projects/pushkit-emulator/messages/") == true, "\(steps[1])")
        for bad in steps[2...3] {
            #expect(bad["status"] as? Int == 400)
            let error = try #require((bad["body"] as? [String: Any])?["error"] as? [String: Any])
            #expect(error["status"] as? String == "INVALID_ARGUMENT")
            let detail = try #require((error["details"] as? [[String: Any]])?.first)
            #expect(detail["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest")
        }

        let records = emulator.waitForRecords(4)
        #expect(records.map { $0["provider"] as? String } == ["fcm", "fcm", "fcm", "fcm"])
        #expect(records.map { $0["kind"] as? String } == ["token", "send", "send", "send"])
        #expect(records.map { $0["status"] as? Int } == [200, 200, 400, 400])
        #expect(records[1]["device_token"] as? String == Self.device)
        let recorded = (try? String(contentsOfFile: emulator.recordPath, encoding: .utf8)) ?? ""
        #expect(!recorded.contains("ya29."), "the access token is never recorded")
        #expect(!recorded.contains("assertion"), "the assertion is never recorded")
        #expect(!recorded.contains("PRIVATE KEY"))

        let status = try Curl.request(emulator.baseURL + "/emulator/status", method: "GET", cacert: emulator.caPath)
        #expect(status.json?["fcm_token_requests"] as? Int == 1)
        #expect(status.json?["fcm_tokens_issued"] as? Int == 1)
        #expect(status.json?["fcm_delivered"] as? Int == 1)
    }

    @Test(
        "--script-file makes an FCM token answer UNREGISTERED once, another QUOTA_EXCEEDED with Retry-After; a token unregistered at run time answers UNREGISTERED"
    )
    func scriptedAnswers() throws {
        let setup = try ProviderSetup()
        let script = try setup.directory.write(
            "script", "\(Self.unregistered) UNREGISTERED,ok\n\(Self.busy) QUOTA_EXCEEDED\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        let uninstalled = try Curl.request(
            emulator.baseURL + "/emulator/unregister/" + Self.uninstalled, cacert: emulator.caPath)
        #expect(uninstalled.status == 200)
        let steps = try runClient(emulator, scripted: [Self.unregistered, Self.busy, Self.uninstalled])
        let scripted = steps.filter { ($0["step"] as? String)?.hasPrefix("scripted") == true }
        #expect(scripted.map { $0["status"] as? Int } == [404, 200, 429, 429, 404, 404], "\(scripted)")
        let codes = scripted.map { step -> String? in
            let error = (step["body"] as? [String: Any])?["error"] as? [String: Any]
            return (error?["details"] as? [[String: Any]])?.first?["errorCode"] as? String
        }
        #expect(
            codes == ["UNREGISTERED", nil, "QUOTA_EXCEEDED", "QUOTA_EXCEEDED", "UNREGISTERED", "UNREGISTERED"])
        #expect(scripted[2]["retry_after"] as? String != nil)
    }

    @Test("over HTTP/2 too: a bad assertion is 400 invalid_grant, a send without a token 401 UNAUTHENTICATED")
    func http2() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let token = try Curl.request(
            emulator.baseURL + "/token", headers: [("content-type", "application/x-www-form-urlencoded")],
            body: "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=e30.e30.AAAA",
            cacert: emulator.caPath)
        #expect(token.httpVersion == "2")
        #expect(token.status == 400)
        #expect(token.json?["error"] as? String == "invalid_grant")
        let send = try Curl.request(
            emulator.baseURL + "/v1/projects/pushkit-emulator/messages:send", body: #"{"message":{"topic":"news"}}"#,
            cacert: emulator.caPath)
        #expect(send.status == 401)
        #expect((send.json?["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
        let large = try Curl.request(
            emulator.baseURL + "/v1/projects/pushkit-emulator/messages:send",
            body: #"{"message":{"topic":"news","data":{"k":""# + String(repeating: "x", count: 40_000) + #""}}}"#,
            cacert: emulator.caPath)
        #expect(large.status == 400, "a body past the connection's limit is answered before its end")
        let apns = try Curl.request(
            emulator.baseURL + "/3/device/" + String(repeating: "0a", count: 32), body: "{}", cacert: emulator.caPath,
            extra: ["--http1.1"])
        #expect(apns.status == 505, "APNs routes stay HTTP/2 only")
    }

    @Test("--print-env names FCM_URL and the service account file (mode 0600) the emulator uses")
    func printEnvironment() throws {
        let setup = try ProviderSetup()
        let result = try BuiltTool.run(
            "apns-emulator", ["--print-env", "--port", "2197", "--fcm-project", "my-project-42"],
            environment: setup.environment)
        result.expectSuccess()
        #expect(result.stdout.contains("export FCM_URL='https://127.0.0.1:2197'"))
        let line = try #require(
            result.stdout.split(separator: "\n").first { $0.hasPrefix("export FCM_SERVICE_ACCOUNT=") })
        let path = String(line.dropFirst("export FCM_SERVICE_ACCOUNT='".count).dropLast())
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let file = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(file["type"] as? String == "service_account")
        #expect(file["project_id"] as? String == "my-project-42")
        #expect(file["client_email"] as? String == "emulator@my-project-42.iam.gserviceaccount.com")
        #expect(file["token_uri"] as? String == "https://127.0.0.1:2197/token")
        #expect((file["private_key"] as? String)?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
    }
}
