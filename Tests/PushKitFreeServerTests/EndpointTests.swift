import Foundation
import PushKitFreeCore
import PushKitFreeRegistry
@testable import PushKitFreeServer
import Synchronization
import Testing

/// The pure parts of `register-apns serve`: routing, the secret, the rate limit, the listen
/// address, and the request bodies of the subscription and notification routes.
@Suite("register-apns serve: routing, auth, rate limit, bodies")
struct EndpointTests {
    @Test("routes: literal paths win over {token}, a known path with another method is 405, the rest 404")
    func routing() {
        let routes = EndpointRouterTests.routes
        func route(_ method: String, _ path: String, _ parameter: String? = nil) -> RouteCatalogue.Match {
            .route(RouteCatalogue.Route(method: method, path: path), parameter: parameter)
        }
        #expect(routes.match(method: "POST", path: "/register-apns") == route("POST", "/register-apns"))
        #expect(routes.match(method: "POST", path: "/register-apns/") == route("POST", "/register-apns"))
        #expect(
            routes.match(method: "POST", path: "/api/v1/devices/register") == route("POST", "/api/v1/devices/register"))
        #expect(
            routes.match(method: "DELETE", path: "/api/v1/devices/ab%43d")
                == route("DELETE", "/api/v1/devices/{token}", "abCd"))
        #expect(
            routes.match(method: "POST", path: "/api/v1/notifications/send/x")
                == route("POST", "/api/v1/notifications/send/{token}", "x"))
        // A literal path is never a {token} (OpenAPI's rule): its Allow names only its own methods.
        #expect(routes.match(method: "GET", path: "/api/v1/devices/register") == .methodNotAllowed(allowed: ["POST"]))
        #expect(
            routes.match(method: "DELETE", path: "/api/v1/devices/register/") == .methodNotAllowed(allowed: ["POST"]))
        #expect(routes.match(method: "GET", path: "/api/v1/devices/phone") == .methodNotAllowed(allowed: ["DELETE"]))
        #expect(routes.match(method: "PUT", path: "/health") == .methodNotAllowed(allowed: ["GET", "HEAD"]))
        #expect(routes.match(method: "HEAD", path: "/health") == route("GET", "/health"))
        #expect(routes.match(method: "HEAD", path: "/health/live") == route("GET", "/health/live"))
        #expect(routes.match(method: "HEAD", path: "/api/v1/devices") == route("GET", "/api/v1/devices"))
        #expect(routes.match(method: "HEAD", path: "/register-apns") == .methodNotAllowed(allowed: ["POST"]))
        #expect(routes.match(method: "GET", path: "/api/v1/devices//") == route("GET", "/api/v1/devices"))
        #expect(routes.match(method: "GET", path: "/api/v1") == .notFound)
        #expect(routes.match(method: "DELETE", path: "/api/v1/devices/a/b") == .notFound)
        #expect(Set(routes.routes).count == routes.routes.count)
    }

    @Test("the secret matches only itself, from either header; Basic and empty do not count")
    func secret() throws {
        let secret = try SharedSecret("correct horse")
        #expect(secret.matches("correct horse"))
        #expect(!secret.matches("correct hors") && !secret.matches("correct horse ") && !secret.matches(""))
        #expect(secret.serverKey == nil, "a short secret's hash is not put in notifications")
        let long = String(repeating: "0123456789abcdef", count: 2)
        #expect(try SharedSecret(long).serverKey == HexDigest.sha256(long))
        #expect(SharedSecret.presented(authorization: "Bearer  abc ", openClawAuth: nil) == "abc")
        #expect(SharedSecret.presented(authorization: "bearer abc", openClawAuth: "other") == "abc")
        #expect(SharedSecret.presented(authorization: "Basic abc", openClawAuth: "xyz") == "xyz")
        #expect(SharedSecret.presented(authorization: nil, openClawAuth: nil) == nil)
        #expect(throws: ConfigurationError.self) { try SharedSecret("") }
    }

    @Test("the secret file: owner-only, trailing newline trimmed, missing and empty refused")
    func secretFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("endpoint-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret"
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(try SharedSecret.load(path: path).matches("s3cret"))
        chmod(path, 0o640)
        #expect { try SharedSecret.load(path: path) } throws: {
            ($0 as? ConfigurationError)?.message.contains("chmod 600") == true
        }
        chmod(path, 0o600)
        try Data("\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try SharedSecret.load(path: path) } throws: {
            ($0 as? ConfigurationError)?.message.contains("is empty") == true
        }
        #expect { try SharedSecret.load(path: directory + "/none") } throws: {
            ($0 as? ConfigurationError)?.message.contains("does not exist") == true
        }
    }

    @Test("the rate limit: a burst up to the limit, then one every 60/N s, per client; 0 is off")
    func rateLimit() {
        let now = Mutex(0.0)
        let limiter = RateLimiter(perMinute: 3) { now.withLock { $0 } }
        #expect(limiter.admit("a") == nil && limiter.admit("a") == nil && limiter.admit("a") == nil)
        #expect(limiter.admit("a") == 20)
        #expect(limiter.admit("b") == nil, "another client has its own allowance")
        now.withLock { $0 = 15 }
        #expect(limiter.admit("a") == 5)
        now.withLock { $0 = 20.5 }
        #expect(limiter.admit("a") == nil)
        #expect(limiter.admit("a") != nil)
        now.withLock { $0 = 1000 }
        #expect((0..<3).allSatisfy { _ in limiter.admit("a") == nil }, "refills to the limit, not beyond")
        #expect(limiter.admit("a") != nil)
        let off = RateLimiter(perMinute: 0)
        #expect((0..<1000).allSatisfy { _ in off.admit("a") == nil })
    }

    @Test("the rate limit keys an IPv6 client by its /64, an IPv4-mapped one by its IPv4 address")
    func rateLimitKeys() {
        #expect(RateLimiter.key("2001:db8:1:2::5") == RateLimiter.key("2001:db8:1:2:ffff:ffff:ffff:1"))
        #expect(RateLimiter.key("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(RateLimiter.key("2001:db8:1:3::5") != RateLimiter.key("2001:db8:1:2::5"))
        #expect(RateLimiter.key("::ffff:10.0.0.5") == "10.0.0.5" && RateLimiter.key("10.0.0.5") == "10.0.0.5")
        #expect(RateLimiter.key("fe80::1%eth0") == RateLimiter.key("fe80::2"))
        let limiter = RateLimiter(perMinute: 1) { 0 }
        #expect(limiter.admit("2001:db8::1") == nil)
        #expect(limiter.admit("2001:db8::2") != nil, "another address of the same /64 shares the allowance")
        #expect(limiter.exhausted("2001:db8::3") != nil && limiter.exhausted("2001:db9::1") == nil)
        #expect(limiter.admit("2001:db9::1") == nil)
    }

    @Test("--listen: host:port, [IPv6]:port, :port; loopback is 127/8, ::1 and localhost")
    func listenAddress() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8100") == ListenAddress(host: "127.0.0.1", port: 8100))
        #expect(try ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(try ListenAddress(parsing: ":9000") == ListenAddress(host: "127.0.0.1", port: 9000))
        #expect(
            try ListenAddress(parsing: "127.1.2.3:1").isLoopback && ListenAddress(host: "localhost", port: 1).isLoopback
        )
        #expect(try !ListenAddress(parsing: "0.0.0.0:8100").isLoopback && !ListenAddress(parsing: "[::]:1").isLoopback)
        #expect(try !ListenAddress(parsing: "100.64.0.7:8100").isLoopback)
        for bad in ["8100", "host", "a:b", "1.2.3.4:70000", "[::1]", "::1:80", "h:-1"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
        #expect(ListenAddress(host: "::1", port: 5).description == "[::1]:5")
    }

    @Test("a subscription: agent key from cwd, the device joins the agent's group, the agent is recorded")
    func subscription() throws {
        let token = String(repeating: "ab", count: 32)
        let request = try AgentSubscription.Request(
            JSONValue.parse(
                Data(
                    #"{"cwd": "/work/a", "installation_id": "i-1", "apns_token": "\#(token)", "agent_display_name": "A", "environment": "sandbox"}"#
                        .utf8)))
        #expect(request.agentKey == HexDigest.sha256("/work/a") && request.registration.deviceID == "i-1")
        var devices = RegisteredDevices()
        try devices.register(
            try DeviceRegistration(deviceID: "i-1", token: try DeviceToken(validating: token), groups: ["family"]),
            at: Date())
        let outcome = try request.apply(to: &devices, at: Date())
        #expect(outcome.device.record.groups == ["family", request.agentKey])
        #expect(outcome.device.record.environment == .sandbox)
        #expect(AgentSubscription.displayName(agentKey: request.agentKey, in: devices) == "A")
        _ = try request.apply(to: &devices, at: Date())
        #expect(devices["i-1"]?.groups == ["family", request.agentKey], "subscribing twice adds the group once")

        for (body, message) in [
            (#"{"installation_id": "i", "apns_token": "\#(token)"}"#, "\"cwd\" is missing"),
            (#"{"cwd": "/a", "apns_token": "\#(token)"}"#, "\"installation_id\" is missing"),
            (#"{"cwd": "/a", "installation_id": "i"}"#, "\"fcm_token\" is missing"),
            (#"{"cwd": 1, "installation_id": "i", "apns_token": "\#(token)"}"#, "\"cwd\" must be a string"),
        ] {
            #expect { try AgentSubscription.Request(JSONValue.parse(Data(body.utf8))) } throws: {
                ($0 as? EndpointError)?.status == 400 && ($0 as? EndpointError)?.message.contains(message) == true
            }
        }
        #expect {
            try AgentSubscription.Request(
                JSONValue.parse(Data(#"{"cwd": "/a", "installation_id": "i", "apns_token": "xyz"}"#.utf8)))
        } throws: { ($0 as? EndpointError)?.status == 422 }
        let long = String(repeating: "a", count: 257)
        #expect {
            try AgentSubscription.Request(
                JSONValue.parse(
                    Data(
                        #"{"cwd": "/a", "installation_id": "i", "apns_token": "\#(token)", "agent_display_name": "\#(long)"}"#
                            .utf8)))
        } throws: {
            ($0 as? EndpointError)?.status == 400
                && ($0 as? EndpointError)?.message.contains("\"agent_display_name\" is 257 characters long") == true
        }
        let bell = try AgentSubscription.Request(
            JSONValue.parse(
                Data(
                    #"{"cwd": "/a", "installation_id": "i", "apns_token": "\#(token)", "agent_display_name": "\u0007A"}"#
                        .utf8)))
        #expect(bell.displayName == "\u{07}A", "control characters are accepted (output escapes them)")
    }

    @Test("reply finished: title from the display name, else the cwd's last component, else Reply ready")
    func replyFinished() throws {
        let reply = try AgentSubscription.ReplyFinished(
            JSONValue.parse(
                Data(#"{"cwd": "/srv/bots/helper/", "conversation_id": "c1", "message_preview": "  hi  "}"#.utf8)))
        let named = reply.specification(displayName: "Helper", serverKey: "k")
        #expect(named.content.title == "Helper" && named.content.body == "hi" && named.collapseID == reply.agentKey)
        #expect(
            named.content.customData == [
                "type": "reply_finished", "server_key": "k", "cwd": "/srv/bots/helper/", "conversation_id": "c1",
            ])
        #expect(reply.specification(displayName: nil, serverKey: nil).content.title == "helper")
        #expect(reply.specification(displayName: nil, serverKey: nil).content.customData["server_key"] == nil)
        let root = try AgentSubscription.ReplyFinished(JSONValue.parse(Data(#"{"cwd": "/"}"#.utf8)))
        #expect(root.specification(displayName: nil, serverKey: nil).content.title == "Reply ready")
        #expect(root.specification(displayName: nil, serverKey: nil).content.body == "Reply ready")
        let built = try named.build(bundleID: "com.example.app")
        #expect(built.request.collapseID == reply.agentKey)
    }

    @Test("notification bodies: title or body required, message is body, data beside aps")
    func notificationBody() throws {
        let body = try NotificationRequestBody(
            JSONValue.parse(Data(#"{"title": "T", "message": "M", "badge": 3, "data": {"k": 1}}"#.utf8)))
        #expect(body.title == "T" && body.body == "M" && body.badge == 3 && body.data == ["k": 1])
        let built = try body.specification.build(bundleID: "com.example.app")
        let payload = try JSONValue.parse(built.request.payload)
        #expect(payload["k"] == 1 && payload["aps"]?["alert"]?["body"] == "M" && payload["aps"]?["badge"] == 3)
        for (text, message) in [
            ("{}", "nothing to send"), (#"{"title": ""}"#, "nothing to send"),
            (#"{"title": "t", "badge": -1}"#, "0 or more"),
            (#"{"title": "t", "badge": 1.5}"#, "whole number"),
            (#"{"title": "t", "data": []}"#, "must be a JSON object"),
            (#"{"title": "t", "data": {"aps": 1}}"#, "cannot set \"aps\""), ("[]", "expected a JSON object"),
            (#"{"body": "", "message": "m"}"#, "nothing to send"),
            (#"{"body": "b", "message": 1}"#, "\"message\" must be a string"),
        ] {
            #expect { try NotificationRequestBody(JSONValue.parse(Data(text.utf8))) } throws: {
                ($0 as? EndpointError)?.status == 400 && ($0 as? EndpointError)?.message.contains(message) == true
            }
        }
    }

    @Test(
        "notification bodies as FastAPI reads them: a badge written as a string of digits, an empty subtitle left out")
    func notificationBodyLeniency() throws {
        for (text, badge) in [(#""2""#, 2), (#"" 7 ""#, 7), ("3", 3), (#""+4""#, 4)] {
            let body = try NotificationRequestBody(JSONValue.parse(Data(#"{"title": "t", "badge": \#(text)}"#.utf8)))
            #expect(body.badge == badge, "\(text)")
        }
        for (text, message) in [
            (#""two""#, "whole number"), (#""2.5""#, "whole number"), (#""""#, "whole number"),
            (#""-1""#, "0 or more"), ("true", "whole number"),
        ] {
            #expect(throws: EndpointError.self, "\(text)") {
                try NotificationRequestBody(JSONValue.parse(Data(#"{"title": "t", "badge": \#(text)}"#.utf8)))
            }
            do {
                _ = try NotificationRequestBody(JSONValue.parse(Data(#"{"title": "t", "badge": \#(text)}"#.utf8)))
            } catch let error as EndpointError {
                #expect(error.status == 400 && error.message.contains(message), "\(text): \(error.message)")
            }
        }
        let empty = try NotificationRequestBody(JSONValue.parse(Data(#"{"title": "t", "subtitle": ""}"#.utf8)))
        #expect(empty.subtitle == nil)
        let payload = try JSONValue.parse(try empty.specification.build(bundleID: "com.example.app").request.payload)
        #expect(payload["aps"]?["alert"]?["subtitle"] == nil, "no empty subtitle reaches APNs")
    }

    @Test("notification bodies: encrypt turns content encryption on or off for the send, else the config decides")
    func notificationBodyEncrypt() throws {
        func body(_ text: String) throws -> NotificationRequestBody {
            try NotificationRequestBody(JSONValue.parse(Data(text.utf8)), profile: .openClaw)
        }
        let encrypted = try body(#"{"title": "T", "body": "secret", "encrypt": true}"#)
        #expect(encrypted.encrypt == true && encrypted.specification.encrypt == true)
        let request = try encrypted.specification.build(bundleID: "com.example.app").request
        #expect(
            try JSONValue.parse(request.payload) == ["aps": ["alert": ["title": "New message"], "mutable-content": 1]])
        #expect(String(decoding: try #require(request.sealedContent), as: UTF8.self).contains("secret"))
        let defaults = EncryptionDefaults(encrypt: true)
        #expect(
            try body(#"{"title": "T"}"#).specification.build(bundleID: "a.b", encryption: defaults).request
                .sealedContent != nil)
        #expect(
            try body(#"{"title": "T", "encrypt": false}"#).specification.build(bundleID: "a.b", encryption: defaults)
                .request.sealedContent == nil)
        #expect { try body(#"{"title": "T", "encrypt": "yes"}"#) } throws: {
            ($0 as? EndpointError)?.status == 400 && ($0 as? EndpointError)?.message.contains("\"encrypt\"") == true
        }
    }

    @Test("OpenClaw's routes are the /api/v1 ones")
    func openClawRoutes() {
        #expect(
            Set(EndpointRouterTests.routes.routes.filter { $0.path.hasPrefix("/api/v1/") }.map(\.description)) == [
                "POST /api/v1/devices/register", "DELETE /api/v1/devices/{token}", "GET /api/v1/devices",
                "POST /api/v1/notifications/send", "POST /api/v1/notifications/send/{token}",
            ])
    }

    @Test("networks: IPv4 and IPv6 CIDRs, a bare address is one host, mapped IPv4 peers match IPv4 networks")
    func networks() throws {
        let lan = try IPNetwork(parsing: "10.10.10.0/24")
        #expect(lan.contains("10.10.10.7") && lan.contains("10.10.10.255") && !lan.contains("10.10.11.1"))
        #expect(lan.contains("::ffff:10.10.10.7") && !lan.contains("::ffff:10.10.11.7"))
        #expect(!lan.contains("unknown") && !lan.contains("") && !lan.contains("fd00::1"))
        let cgnat = try IPNetwork(parsing: "100.64.0.0/10")
        #expect(
            cgnat.contains("100.127.255.254") && !cgnat.contains("100.128.0.1") && cgnat.description == "100.64.0.0/10")
        let tailnet = try IPNetwork(parsing: "fd7a:115c:a1e0::/48")
        #expect(
            tailnet.contains("fd7a:115c:a1e0:ab12::1") && tailnet.contains("FD7A:115C:A1E0::5%eth0")
                && !tailnet.contains("fd7a:115c:a1e1::1"))
        #expect(!tailnet.contains("10.10.10.7") && tailnet.description == "fd7a:115c:a1e0::/48")
        let host = try IPNetwork(parsing: "192.168.1.20")
        #expect(host.prefixLength == 32 && host.contains("192.168.1.20") && !host.contains("192.168.1.21"))
        #expect(try IPNetwork(parsing: "0.0.0.0/0").contains("8.8.8.8"))
        #expect(try IPNetwork(parsing: "10.0.0.0/7").contains("11.255.0.1"))
        #expect(try IPNetwork.list(parsing: "10.0.0.0/8, ::1").map(\.description) == ["10.0.0.0/8", "::1/128"])
        for (text, message) in [
            ("10.0.0.0/33", "from 0 to 32"), ("10.10.10.5/24", "write 10.10.10.0/24"), ("fd00::/200", "from 0 to 128"),
            ("lan", "not an IPv4 or IPv6"), ("10.0.0/8", "not an IPv4 or IPv6"), ("10.0.0.0/", "from 0 to 32"),
            ("10.0.0.0/+8", "from 0 to 32"), ("fe80::1/10", "write fe80::/10"),
        ] {
            #expect { try IPNetwork(parsing: text) } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.exitStatus == .usage && error.message.contains("--open-registration \(text)")
                    && error.message.contains(message)
            }
        }
        #expect { try IPNetwork.list(parsing: "10.0.0.0/8,") } throws: {
            ($0 as? ConfigurationError)?.message.contains("empty network") == true
        }
    }

    @Test("error bodies: detail on OpenClaw's routes, the request id and no log detail in a 5xx")
    func errorBodies() {
        let missing = EndpointError.deviceNotFound("no device with token or id \"x\"")
        #expect(missing.body() == ["error": "no device with token or id \"x\""])
        #expect(
            OpenClawErrors().body(of: missing, requestID: "r1") == [
                "error": "no device with token or id \"x\"", "detail": "Device not found",
            ])
        let bad = EndpointError.badRequest("the request body is not JSON")
        #expect(
            OpenClawErrors().body(of: bad, requestID: nil) == [
                "error": "the request body is not JSON", "detail": "the request body is not JSON",
            ])
        let broken = EndpointError.internalError(
            "the device registry cannot be read", logDetail: "state file /srv/devices.json is corrupt")
        let body = broken.body(requestID: "0123456789abcdef")
        #expect(body["request_id"] == "0123456789abcdef")
        #expect(body["error"]?.stringValue?.contains("request id 0123456789abcdef") == true)
        #expect(!body.serializedString().contains("/srv") && broken.description.contains("/srv"))
    }

    @Test("fcm_token: taken as it is, an FCM token an FCM device, an APNs token an APNs device; bad ones are 422")
    func fcmToken() throws {
        let token = String(repeating: "ab", count: 32)
        let request = try AgentSubscription.Request(
            JSONValue.parse(Data(#"{"cwd": "/a", "installation_id": "i", "fcm_token": "\#(token.uppercased())"}"#.utf8))
        )
        #expect(request.registration.token.text == token && request.registration.deviceID == "i")
        #expect(request.registration.token.transport == .apns)
        let fcm = try AgentSubscription.Request(
            JSONValue.parse(
                Data(
                    #"{"cwd": "/a", "installation_id": "i", "fcm_token": "\#(Self.fcmTokenText)", "environment": "sandbox"}"#
                        .utf8)))
        #expect(fcm.registration.token.text == Self.fcmTokenText && fcm.registration.token.transport == .fcm)
        #expect(fcm.registration.environment == nil, "an FCM token has no APNs environment")
        let both = try AgentSubscription.Request(
            JSONValue.parse(
                Data(#"{"cwd": "/a", "installation_id": "i", "apns_token": "\#(token)", "fcm_token": "x:y"}"#.utf8)))
        #expect(both.registration.token.text == token, "apns_token wins")
        for (body, message) in [
            (#""fcm_token": "eXk:APA91b""#, "\"fcm_token\": registration token has 10 characters"),
            (#""fcm_token": "\#(token)", "transport": "fcm""#, "\"transport\" is fcm, but the token is an APNs"),
            (#""fcm_token": "\#(Self.fcmTokenText)", "transport": "apns""#, "but the token is an FCM registration"),
        ] {
            #expect {
                try AgentSubscription.Request(
                    JSONValue.parse(Data(#"{"cwd": "/a", "installation_id": "i", \#(body)}"#.utf8)))
            } throws: {
                ($0 as? EndpointError)?.status == 422 && ($0 as? EndpointError)?.message.contains(message) == true
            }
        }
    }

    /// A registration token of today's shape (as FCMFixtures.tokenText in the core's tests).
    static let fcmTokenText = "fJ3kQ9xYZ0a_bC-dEfGh12:APA91b" + String(repeating: "Xy_9-Qw3Er", count: 14)
}
