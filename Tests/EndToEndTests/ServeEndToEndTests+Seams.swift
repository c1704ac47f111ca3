import Foundation
import Testing

/// A token as OpenClaw's routes show it: the first 16 characters and `...`.
func openClawToken(_ token: String) -> String { String(token.prefix(16)) + "..." }

/// Issue 16: the server's seams with clients that exist already (the Sven app, proxy-chat apps,
/// OpenClaw clients, load balancers), and what its errors and health checks show.
extension ServeEndToEndTests {
    // MARK: Open registration

    @Test(
        "--open-registration: registrations from a named network need no secret; listing, removing and sending still do"
    )
    func openRegistration() throws {
        let server = try RunningServe(
            [
                "--secret-file", try secretFile(), "--open-registration", "10.0.0.0/8, 127.0.0.0/8",
                "--rate-limit", "5",
            ], environment: environment())
        #expect(
            server.stderr.contains(
                "registration routes accept requests without the secret from 10.0.0.0/8, 127.0.0.0/8"))
        // The Sven app's request, exactly: no secret.
        let app = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1))"}"#)
        #expect(app.status == 200 && app.json as NSDictionary? == ["status": "ok"], "\(app.body)")
        #expect(
            try server.request("POST", "/api/v1/devices/register", json: #"{"device_token": "\#(Self.token(2))"}"#)
                .status == 200)
        let subscription = try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "/a", "installation_id": "inst-3", "apns_token": "\#(Self.token(3))"}"#)
        #expect(subscription.status == 200)
        let hook = #"{"action": "register", "device_token": "watch-4", "apns_token": "\#(Self.token(4))"}"#
        #expect(try server.request("POST", "/hooks/ios-device", json: hook).status == 200)
        let stored = try devices()
        #expect(
            Set(stored.keys) == [
                "phone-1", "apns-" + String(try sha256Hex(Self.token(2)).prefix(16)), "inst-3", "watch-4",
            ])

        // Removing, listing and sending are not registrations: 401 as before, nothing changed.
        let before = try stateBytes()
        let unhook = try server.request(
            "POST", "/hooks/ios-device", json: #"{"action": "unregister", "device_token": "watch-4"}"#)
        #expect(unhook.status == 401 && unhook.error?.contains("unregistering needs the secret") == true)
        let closed: [(String, String, String?)] = [
            ("GET", "/api/v1/devices", nil), ("HEAD", "/api/v1/devices", nil),
            ("DELETE", "/api/v1/devices/phone-1", nil),
            ("DELETE", "/api/v1/devices/" + Self.token(1), nil),
            ("POST", "/api/v1/notifications/send", #"{"title": "t"}"#),
            ("POST", "/api/v1/notifications/send/phone-1", #"{"title": "t"}"#),
            ("POST", "/hooks/ios-notify", #"{"title": "t"}"#),
            ("POST", "/triggerReplyFinished", #"{"cwd": "/a"}"#),
        ]
        // A wrong secret is not waved through because the network is open.
        let wrong = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "x", "apns_token": "\#(Self.token(5))"}"#,
            headers: ["Authorization": "Bearer wrong"])
        #expect(wrong.status == 401 && wrong.error == "wrong secret")
        // Each refusal spends the client's allowance of failed authentications (--rate-limit 5):
        // four more 401s, then 429.
        for (index, (method, path, body)) in closed.enumerated() {
            let answer = try server.request(method, path, json: body)
            #expect(answer.status == (index < 4 ? 401 : 429), "\(method) \(path): \(answer.status)")
        }
        #expect(try stateBytes() == before)

        // Still rate-limited: five registration requests were made (the refused unregister among them).
        let limited = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "p6", "apns_token": "\#(Self.token(6))"}"#)
        #expect(limited.status == 429 && limited.headers["retry-after"] != nil)
    }

    @Test("--open-registration for another network lets nothing in without the secret")
    func openRegistrationElsewhere() throws {
        let server = try RunningServe(
            [
                "--secret-file", try secretFile(), "--open-registration", "10.0.0.0/8,fd00::/8",
                "--open-registration", "::ffff:192.168.0.0/112",
            ], environment: environment())
        let answer = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1))"}"#)
        #expect(answer.status == 401 && answer.error?.contains("missing credentials") == true)
        #expect(!FileManager.default.fileExists(atPath: stateFile))
    }

    @Test("--open-registration refuses a value that is not a network (exit 64, naming it), and --no-auth")
    func openRegistrationRefusals() throws {
        let env = environment()
        let secret = try secretFile()
        for (value, message) in [
            ("10.0.0.0/33", "from 0 to 32"), ("10.1.2.3/8", "write 10.0.0.0/8"), ("lan", "not an IPv4 or IPv6"),
            ("10.0.0.0/8,,", "an empty network"), ("fd00::/129", "from 0 to 128"), ("10.0.0.0/-1", "from 0 to 32"),
            ("300.1.1.1/32", "not an IPv4 or IPv6"), ("fd00::1/8", "write fd00::/8"),
        ] {
            let result = try BuiltTool.run(
                "register-apns",
                [
                    "serve", "--listen", "127.0.0.1:0", "--secret-file", secret,
                    "--open-registration", value,
                ], environment: env)
            #expect(result.status == 64, "\(value): \(result.stderr)")
            #expect(
                result.stderr.contains("--open-registration \(value)") || result.stderr.contains("\"\(value)\""),
                "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(value): \(result.stderr)")
        }
        let noAuth = try BuiltTool.run(
            "register-apns",
            [
                "serve", "--listen", "127.0.0.1:0", "--no-auth",
                "--open-registration", "127.0.0.0/8",
            ], environment: env)
        #expect(noAuth.status == 64 && noAuth.stderr.contains("--open-registration goes with --secret-file"))
        #expect(!FileManager.default.fileExists(atPath: stateFile))
    }

    // MARK: Unchanged clients

    @Test("/register-apns takes device_token and apns_token from the query when there is no body")
    func queryRegistration() throws {
        let server = try RunningServe(["--no-auth"], environment: environment())
        let query = try server.request("POST", "/register-apns?device_token=phone-q&apns_token=\(Self.token(11))")
        #expect(query.status == 200 && query.json as NSDictionary? == ["status": "ok"], "\(query.body)")
        #expect(try devices()["phone-q"]?["token"] as? String == Self.token(11))
        // Percent-encoded, as a client library encodes an id with a space.
        let encoded = try server.request(
            "POST", "/register-apns?device_token=Sven%27s%20phone&apns_token=\(Self.token(12))")
        #expect(encoded.status == 200)
        #expect(try devices()["Sven's phone"]?["token"] as? String == Self.token(12))
        // A body wins over the query.
        let both = try server.request(
            "POST", "/register-apns?device_token=ignored&apns_token=\(Self.token(13))",
            json: #"{"device_token": "from-body", "apns_token": "\#(Self.token(14))"}"#)
        #expect(both.status == 200)
        #expect(try devices()["from-body"]?["token"] as? String == Self.token(14))
        #expect(try devices()["ignored"] == nil)
        let before = try stateBytes()
        // Beside a body, the query is not read, but it must still be what docs/openapi.yaml says.
        for (query, status) in [("device_token=a%07b", 400), ("apns_token=12", 422)] {
            let garbage = try server.request(
                "POST", "/register-apns?" + query,
                json: #"{"device_token": "from-body-2", "apns_token": "\#(Self.token(15))"}"#)
            #expect(garbage.status == status && garbage.error?.hasPrefix("query parameter") == true, "\(garbage.body)")
        }
        let bad = try server.request("POST", "/register-apns?device_token=p&apns_token=xyz")
        #expect(bad.status == 422 && bad.error?.contains("\"x\"") == true, "\(bad.body)")
        let missing = try server.request("POST", "/register-apns?device_token=p")
        #expect(missing.status == 422 || missing.status == 400)
        #expect(try stateBytes() == before)
    }

    @Test("/registerSubscription: fcm_token is taken as it is: an FCM token an FCM device, an APNs token an APNs one")
    func fcmTokenField() throws {
        let server = try RunningServe(["--no-auth"], environment: environment())
        let hex = Self.token(21).uppercased()
        let ok = try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "/srv/chat", "installation_id": "proxy-1", "fcm_token": "\#(hex)"}"#)
        #expect(ok.status == 200 && ok.json?["status"] as? String == "subscribed", "\(ok.body)")
        #expect(try devices()["proxy-1"]?["token"] as? String == Self.token(21))
        #expect(try devices()["proxy-1"]?["transport"] == nil, "an APNs device, written as before")
        let fcm = fcmTokenText(22)
        let taken = try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "/srv/chat", "installation_id": "proxy-2", "fcm_token": "\#(fcm)"}"#)
        #expect(taken.status == 200, "\(taken.body)")
        let stored = try #require(try devices()["proxy-2"])
        #expect(stored["token"] as? String == fcm && stored["transport"] as? String == "fcm")
        #expect(stored["groups"] as? [String] == [try sha256Hex("/srv/chat")], "subscribed to the agent")
        let before = try stateBytes()
        let refused = try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "/srv/chat", "installation_id": "proxy-3", "fcm_token": "eXk3:APA91b"}"#)
        #expect(refused.status == 422, "\(refused.body)")
        #expect(
            refused.error?.contains("\"fcm_token\": registration token has 11 characters") == true, "\(refused.body)")
        #expect(try stateBytes() == before)
        let neither = try server.request(
            "POST", "/registerSubscription", json: #"{"cwd": "/srv/chat", "installation_id": "p"}"#)
        #expect(neither.status == 400 && neither.error?.contains("\"fcm_token\" is missing") == true)
    }

    @Test("OpenClaw's routes answer FastAPI's shapes: detail beside error, 404 Device not found; native routes do not")
    func openClawShapes() throws {
        let server = try RunningServe(["--no-auth"], environment: environment())
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1))"}"#)
        for (method, path, body) in [
            ("DELETE", "/api/v1/devices/" + Self.token(9), nil as String?),
            ("DELETE", "/api/v1/devices/nobody", nil),
            ("POST", "/api/v1/notifications/send/nobody", #"{"title": "t"}"#),
        ] {
            let answer = try server.request(method, path, json: body)
            #expect(
                answer.status == 404 && answer.json?["detail"] as? String == "Device not found",
                "\(path): \(answer.body)")
            #expect(answer.error?.isEmpty == false && answer.body.contains(Self.token(9)) == false)
        }
        let bad = try server.request("POST", "/api/v1/devices/register", json: "not json")
        #expect(
            bad.status == 400 && bad.json?["detail"] as? String == bad.error && bad.error?.contains("not JSON") == true)
        let native = try server.request(
            "POST", "/gateway/messages",
            json: #"{"type": "briefing_config", "device_id": "nobody", "time": "07:00", "timezone": "UTC"}"#)
        #expect(native.status == 404 && native.json?["detail"] == nil && native.error != nil, "\(native.body)")
        let nativeBad = try server.request("POST", "/register-apns", json: "not json")
        #expect(nativeBad.status == 400 && nativeBad.json?.keys.sorted() == ["error"])

        let list = try server.request("GET", "/api/v1/devices")
        let tokens = (list.json?["devices"] as? [[String: Any]])?.map { $0["token"] as? String }
        #expect(tokens == [String(Self.token(1).prefix(16)) + "..."])
    }

    @Test("HEAD works wherever GET does: same status and headers, no body; Allow names it")
    func head() throws {
        let server = try RunningServe(["--secret-file", try secretFile()], environment: environment())
        let auth = ["Authorization": "Bearer s3cret-for-tests"]
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1))"}"#,
            headers: auth)
        for (path, headers) in [("/health", [:]), ("/health/live", [:]), ("/api/v1/devices", auth), ("/metrics", auth)]
        {
            let get = try server.request("GET", path, headers: headers)
            let head = try server.request("HEAD", path, headers: headers)
            #expect(get.status == 200 && head.status == 200, "\(path): GET \(get.status), HEAD \(head.status)")
            #expect(head.body.isEmpty, "\(path): \(head.body)")
            #expect(head.headers["content-type"] == get.headers["content-type"])
            if path != "/metrics" {
                #expect(head.headers["content-length"] == get.headers["content-length"], "\(path)")
            }
        }
        let unauthorized = try server.request("HEAD", "/api/v1/devices")
        #expect(
            unauthorized.status == 401 && unauthorized.body.isEmpty
                && unauthorized.headers["www-authenticate"] == "Bearer")
        let notAllowed = try server.request("HEAD", "/register-apns", headers: auth)
        #expect(notAllowed.status == 405 && notAllowed.headers["allow"] == "POST")
        let put = try server.request("PUT", "/health")
        #expect(put.status == 405 && put.headers["allow"] == "GET, HEAD")
        #expect(server.stderr.contains("HEAD /api/v1/devices 200"), "the access log names HEAD")
    }

    // MARK: What errors show, and health

    @Test(
        "a corrupt state file: 500 without the path, with a request id the log has with the detail; /health 503 until fixed"
    )
    func corruptStateFileAndHealth() throws {
        let server = try RunningServe(["--secret-file", try secretFile()], environment: environment())
        let auth = ["Authorization": "Bearer s3cret-for-tests"]
        #expect(try server.request("GET", "/health").status == 200, "a missing state file is an empty registry")
        try FileManager.default.createDirectory(
            atPath: (stateFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(#"{"version": 1, "devices": {"phone": "#.utf8).write(to: URL(fileURLWithPath: stateFile))

        for (method, path, body) in [
            ("GET", "/api/v1/devices", nil as String?),
            ("POST", "/register-apns", #"{"device_token": "d", "apns_token": "\#(Self.token(1))"}"#),
            ("POST", "/api/v1/notifications/send", #"{"title": "t"}"#),
        ] {
            let answer = try server.request(method, path, json: body, headers: auth)
            #expect(answer.status == 500, "\(path): \(answer.status) \(answer.body)")
            for leak in [stateFile, setup.directory.path, "devices.json", "/tmp/"] {
                #expect(!answer.body.contains(leak), "\(path) shows \(leak): \(answer.body)")
            }
            let id = try #require(answer.headers["x-request-id"])
            #expect(id.count == 16 && answer.json?["request_id"] as? String == id && answer.error?.contains(id) == true)
            #expect(answer.error?.contains("not a valid registry") == true, "\(answer.body)")
            let logged = server.stderr.split(separator: "\n").first { $0.contains("request \(id):") }
            #expect(logged?.contains(stateFile) == true && logged?.contains("corrupt") == true, "\(server.stderr)")
        }
        // A proxy's request id is kept, so its logs and ours line up.
        let proxied = try server.request(
            "GET", "/api/v1/devices", headers: auth.merging(["X-Request-Id": "edge-42"]) { $1 })
        #expect(proxied.headers["x-request-id"] == "edge-42" && server.stderr.contains("request edge-42:"))

        let unhealthy = try server.request("GET", "/health")
        #expect(unhealthy.status == 503 && unhealthy.json?["status"] as? String == "unhealthy", "\(unhealthy.body)")
        #expect((unhealthy.json?["problems"] as? [String])?.first?.contains("state file") == true)
        #expect(!unhealthy.body.contains(setup.directory.path))
        #expect(try server.request("HEAD", "/health").status == 503)
        #expect(try server.request("GET", "/health/live").json as NSDictionary? == ["status": "alive"])
        #expect(server.stderr.contains("health: unhealthy: state file \(stateFile) is corrupt"))

        // Fixed: healthy again (the changed file is read again), and registration works.
        try Data(#"{"version": 1, "devices": {}}"#.utf8).write(to: URL(fileURLWithPath: stateFile))
        let healthy = try server.request("GET", "/health")
        #expect(healthy.status == 200 && healthy.json as NSDictionary? == ["status": "healthy"], "\(healthy.body)")
        #expect(server.stderr.contains("health: healthy again"))
        #expect(try server.request("GET", "/health/live").status == 200)
        // A directory where the file should be: unhealthy, and the answer names no path either.
        try FileManager.default.removeItem(atPath: stateFile)
        try FileManager.default.createDirectory(atPath: stateFile, withIntermediateDirectories: false)
        let directory = try server.request("GET", "/health")
        #expect(
            directory.status == 503 && directory.error?.contains("cannot read the state file: Is a directory") == true
                && !directory.body.contains(stateFile))
        try FileManager.default.removeItem(atPath: stateFile)
        #expect(try server.request("GET", "/health").status == 200)
    }
}
