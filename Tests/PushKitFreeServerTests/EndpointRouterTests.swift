import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PushKitFreeCore
@testable import PushKitFreeServer
import Testing

/// The router and its middleware through HummingbirdTesting: in process (`.router`, no socket)
/// or on a loopback port (`.live`, where the peer is 127.0.0.1, for the rules that depend on the
/// client's address). The routes are the catalogue's, each in the group of its rules; 405 with
/// `Allow` where Hummingbird's router alone would answer 404; HEAD; the secret and
/// `--open-registration`; the rate limit; the request id.
@Suite("register-apns serve: router and middleware")
struct EndpointRouterTests {
    /// The endpoint `buildApplication` assembles, over a state file in a fresh directory, on a port
    /// the system picks; `secret` turns authentication on.
    final class Endpoint: Sendable {
        let parts: EndpointParts
        let directory: String

        init(secret: String? = nil, openRegistration: [String] = [], rateLimit: Int = 0) throws {
            directory =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("router-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var secretFile: String?
            if let secret {
                secretFile = directory + "/secret"
                try Data(secret.utf8).write(to: URL(fileURLWithPath: directory + "/secret"))
                chmod(directory + "/secret", 0o600)
            }
            let configuration = try Configuration(
                flags: ConfigurationFlags(),
                environment: ["HOME": directory, "APNS_STATE_FILE": directory + "/devices.json"],
                file: ConfigurationFile(path: directory + "/config.json", exists: false, values: [:]))
            let settings = try EndpointSettings(
                configuration: configuration, listen: ListenAddress(host: "127.0.0.1", port: 0),
                secretFile: secretFile, noAuth: secret == nil, rateLimit: rateLimit, tls: nil,
                deliveryPolicy: DeliveryPolicy(), notificationPolicy: NotificationPolicy(),
                openRegistration: try openRegistration.map { try IPNetwork(parsing: $0) },
                // The deadlines are tested on their own (ServeConnectionHardeningTests); here a
                // client the test runner starves for a while must not find its connection closed.
                headerTimeout: .seconds(600), idleTimeout: .seconds(600))
            parts = EndpointParts(settings: settings)
        }

        /// Runs `body` with a client of the endpoint's application, its services running (the write
        /// queue and the delivery thread, stopped gracefully when `body` returns), then removes the
        /// directory.
        func test<Value: Sendable>(
            _ setup: TestingSetup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value
        ) async throws -> Value {
            defer { try? FileManager.default.removeItem(atPath: directory) }
            return try await buildApplication(parts).test(setup, body)
        }
    }

    /// The routes of an endpoint with the defaults, as its router holds them.
    static let routes: RouteCatalogue = {
        guard let endpoint = try? Endpoint() else { preconditionFailure("the test endpoint cannot be made") }
        defer { try? FileManager.default.removeItem(atPath: endpoint.directory) }
        return RouteCatalogue.endpoint(endpoint.parts.settings)
    }()

    /// Every route docs/openapi.yaml documents, as the router names them (Bark's texts by position).
    static let documented: Set<String> = [
        "GET /health", "GET /health/live", "GET /metrics", "POST /register-apns", "POST /api/v1/devices/register",
        "DELETE /api/v1/devices/{token}", "GET /api/v1/devices", "POST /hooks/ios-device", "POST /registerSubscription",
        "POST /api/v1/notifications/send", "POST /api/v1/notifications/send/{token}", "POST /hooks/ios-notify",
        "POST /triggerReplyFinished", "GET /gateway/ws", "GET /", "POST /gateway/messages", "POST /mcp", "POST /",
        "PUT /", "POST /{key}", "PUT /{key}", "POST /push", "GET /{key}/{first}", "POST /{key}/{first}",
        "GET /{key}/{first}/{second}", "POST /{key}/{first}/{second}", "GET /{key}/{first}/{second}/{third}",
        "POST /{key}/{first}/{second}/{third}", "POST /v1/questions", "GET /v1/questions/{id}",
        "DELETE /v1/questions/{id}", "POST /v1/questions/{id}/answer", "POST /v1/withdraw", "PUT /{key}/{first}",
        "DELETE /{key}/{first}", "PUT /{key}/{first}/{second}",
    ]

    @Test("the router serves exactly the documented routes, and the catalogue is the router's")
    func routesAreTheDocumentedOnes() async throws {
        let endpoint = try Endpoint()
        let router = EndpointRouter.make(endpoint.parts)
        let routed = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
        #expect(routed == Self.documented)
        #expect(Set(Self.routes.routes.map(\.description)) == routed)
        _ = try await endpoint.test { _ in }
    }

    @Test("a known path with another method is 405 with Allow, a literal path is never a {token}, the rest 404")
    func methodNotAllowed() async throws {
        try await Endpoint().test { client in
            let put = try await client.execute(uri: "/health", method: .put)
            #expect(put.status == .methodNotAllowed && put.headers[.allow] == "GET, HEAD")
            #expect(String(buffer: put.body).contains("/health does not take PUT"))
            let literal = try await client.execute(uri: "/api/v1/devices/register", method: .delete)
            #expect(literal.status == .methodNotAllowed && literal.headers[.allow] == "POST")
            #expect(String(buffer: literal.body).contains("\"detail\""), "OpenClaw's paths answer with detail")
            let head = try await client.execute(uri: "/register-apns", method: .head)
            #expect(head.status == .methodNotAllowed && head.headers[.allow] == "POST" && head.body.readableBytes == 0)
            let custom = try await client.execute(uri: "/api/v1/devices", method: HTTPRequest.Method("PROPFIND")!)
            #expect(custom.status == .methodNotAllowed && custom.headers[.allow] == "GET, HEAD")
            let nowhere = try await client.execute(uri: "/no/where/at/all/here", method: .post)
            #expect(
                nowhere.status == .notFound
                    && String(buffer: nowhere.body).contains("no route POST /no/where/at/all/here"))
            #expect(nowhere.headers[.contentType] == "application/json" && nowhere.headers[RequestID.header] != nil)
        }
    }

    @Test("HEAD is GET without the body; the request id is kept when valid, made otherwise")
    func headAndRequestID() async throws {
        try await Endpoint().test { client in
            let get = try await client.execute(
                uri: "/health/live", method: .get, headers: [RequestID.header: "proxy-7"])
            let head = try await client.execute(uri: "/health/live", method: .head)
            #expect(get.status == .ok && String(buffer: get.body) == "{\"status\":\"alive\"}\n")
            #expect(get.headers[RequestID.header] == "proxy-7")
            #expect(
                head.status == .ok && head.body.readableBytes == 0 && head.headers[.contentType] == "application/json")
            let made = try await client.execute(
                uri: "/health/live", method: .get, headers: [RequestID.header: "no spaces allowed"])
            #expect(made.headers[RequestID.header]?.count == 16)
        }
    }

    /// The rules each route follows, as the API documents them: which routes an
    /// `--open-registration` peer may call without the secret, and which spend the client's allowance.
    static let openToNetworks: Set<String> = [
        "GET /health", "GET /health/live", "POST /register-apns", "POST /api/v1/devices/register",
        "POST /hooks/ios-device", "POST /registerSubscription", "GET /gateway/ws", "GET /", "POST /gateway/messages",
    ]
    /// The routes that take a capability of their own instead of the secret: the phone's answer,
    /// with the question's answer token.
    static let ownCapability: Set<String> = ["POST /v1/questions/{id}/answer"]
    static let rateLimited: Set<String> = [
        "POST /register-apns", "POST /api/v1/devices/register", "DELETE /api/v1/devices/{token}",
        "POST /hooks/ios-device", "POST /registerSubscription",
    ]

    /// `route`'s method and path, each `{...}` filled in with `phone`.
    static func call(_ route: RouteCatalogue.Route) -> (method: HTTPRequest.Method, uri: String) {
        (HTTPRequest.Method(route.method)!, route.path.replacing(/\{[a-z]+\}/, with: "phone"))
    }

    /// The status each route of the catalogue answers `client`, called without a body.
    static func statuses(from client: any TestClientProtocol) async throws -> [String: HTTPResponse.Status] {
        var statuses: [String: HTTPResponse.Status] = [:]
        for route in routes.routes {
            let (method, uri) = call(route)
            statuses[route.description] = try await client.execute(uri: uri, method: method).status
        }
        return statuses
    }

    /// Checks that exactly the routes of `expected` answered `status`.
    static func expect(
        _ statuses: [String: HTTPResponse.Status], answer status: HTTPResponse.Status,
        exactly expected: Set<String>
    ) {
        for route in routes.routes.map(\.description) {
            #expect(
                (statuses[route] == status) == expected.contains(route),
                "\(route) answered \(statuses[route].map { "\($0.code)" } ?? "nothing")")
        }
    }

    @Test("each route's group: without the secret, a peer on an open network reaches only the registrations")
    func openNetworkReachesRegistrationsOnly() async throws {
        let endpoint = try Endpoint(secret: "s3cret", openRegistration: ["127.0.0.1/32"])
        let statuses = try await endpoint.test(.live) { client in try await Self.statuses(from: client) }
        Self.expect(
            statuses, answer: .unauthorized,
            exactly: Set(Self.routes.routes.map(\.description)).subtracting(Self.openToNetworks)
                .subtracting(Self.ownCapability))
    }

    @Test("each route's group: past the allowance, the routes that register or remove answer 429, no other")
    func rateLimitedRoutes() async throws {
        let statuses = try await Endpoint(rateLimit: 1).test { client in
            // The allowance (a burst of one) spent, on a route that spends it.
            _ = try await client.execute(uri: "/register-apns", method: .post)
            return try await Self.statuses(from: client)
        }
        Self.expect(statuses, answer: .tooManyRequests, exactly: Self.rateLimited)
    }

    @Test("the secret: 401 without it, the health checks open, an open network registers but never lists")
    func authentication() async throws {
        let token = String(repeating: "ab", count: 32)
        let registration = ByteBuffer(string: #"{"device_token": "phone", "apns_token": "\#(token)"}"#)
        try await Endpoint(secret: "s3cret", openRegistration: ["10.10.10.0/24"]).test(.live) { client in
            let outsider = try await client.execute(uri: "/register-apns", method: .post, body: registration)
            #expect(outsider.status == .unauthorized, "127.0.0.1 is not on 10.10.10.0/24")
        }
        try await Endpoint(secret: "s3cret", openRegistration: ["127.0.0.0/8"]).test(.live) { client in
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
            let missing = try await client.execute(uri: "/metrics", method: .get)
            #expect(missing.status == .unauthorized && missing.headers[.wwwAuthenticate] == "Bearer")
            let wrong = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret"])
            #expect(right.status == .ok)
            let neighbour = try await client.execute(uri: "/register-apns", method: .post, body: registration)
            #expect(neighbour.status == .ok, "\(String(buffer: neighbour.body))")
            #expect(try await client.execute(uri: "/api/v1/devices", method: .get).status == .unauthorized)
            let unregister = try await client.execute(
                uri: "/hooks/ios-device", method: .post,
                body: ByteBuffer(string: #"{"action": "unregister", "device_token": "phone"}"#))
            #expect(unregister.status == .unauthorized)
            #expect(String(buffer: unregister.body).contains("unregistering needs the secret"))
            let listed = try await client.execute(
                uri: "/api/v1/devices", method: .get, headers: [AuthMiddleware.openClawAuth: "s3cret"])
            #expect(listed.status == .ok && String(buffer: listed.body).contains("\"count\":1"))
        }
    }
    @Test(
        "ntfy and Bark: Basic carries the secret on their routes only; reserved paths stay native; their error shapes")
    func notifierRoutes() async throws {
        let basic = "Basic " + Data("anyone:s3cret".utf8).base64EncodedString()
        try await Endpoint(secret: "s3cret").test { client in
            let missing = try await client.execute(uri: "/family", method: .post, body: ByteBuffer(string: "hi"))
            #expect(missing.status == .unauthorized)
            let ntfy = try JSONValue.parse(Data(missing.body.readableBytesView))
            #expect(
                ntfy["http"] == 401 && ntfy["code"] == 40100 && ntfy["error"]?.stringValue?.contains("Basic") == true)
            let wrong = "Basic " + Data("anyone:nope".utf8).base64EncodedString()
            let refused = try await client.execute(
                uri: "/k/hello", method: .get, headers: [.authorization: wrong])
            #expect(refused.status == .unauthorized)
            let bark = try JSONValue.parse(Data(refused.body.readableBytesView))
            #expect(bark["code"] == 401 && bark["message"] == "wrong secret" && bark["timestamp"]?.numberValue != nil)
            // The secret over Basic: past the auth, the topic names nothing (404 in ntfy's shape).
            let nobody = try await client.execute(
                uri: "/family", method: .put, headers: [.authorization: basic], body: ByteBuffer(string: "hi"))
            #expect(nobody.status == .notFound && String(buffer: nobody.body).contains("\"http\":404"))
            #expect(String(buffer: nobody.body).contains("names no registered device"))
            let json = try await client.execute(
                uri: "/", method: .post, headers: [.authorization: basic],
                body: ByteBuffer(string: #"{"topic": "family", "message": "hi"}"#))
            #expect(json.status == .notFound, "\(String(buffer: json.body))")
            let push = try await client.execute(
                uri: "/push", method: .post, headers: [.authorization: "Bearer s3cret"],
                body: ByteBuffer(string: #"{"device_key": "k", "body": "b", "level": "loud"}"#))
            #expect(push.status == .badRequest && String(buffer: push.body).contains("\"code\":400"))
            // Basic is not a way in anywhere else.
            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: basic])
            #expect(metrics.status == .unauthorized)
            // Reserved first segments are answered as before, in the native shape, whatever the credentials.
            let postMetrics = try await client.execute(uri: "/metrics", method: .post, headers: [.authorization: basic])
            #expect(postMetrics.status == .methodNotAllowed && postMetrics.headers[.allow] == "GET, HEAD")
            let healthX = try await client.execute(uri: "/health/x", method: .get, headers: [.authorization: basic])
            #expect(healthX.status == .notFound && !String(buffer: healthX.body).contains("\"http\""))
            let device = try await client.execute(
                uri: "/api/v1/devices/phone", method: .get, headers: [.authorization: basic])
            #expect(device.status == .methodNotAllowed && device.headers[.allow] == "DELETE")
            let other = try await client.execute(uri: "/family", method: .delete, headers: [.authorization: basic])
            #expect(other.status == .methodNotAllowed && other.headers[.allow] == "POST, PUT")
            // HEAD on Bark's GET form checks and sends nothing.
            let head = try await client.execute(uri: "/k/hello", method: .head, headers: [.authorization: basic])
            #expect(head.status == .ok && head.body.readableBytes == 0)
        }
    }
}
