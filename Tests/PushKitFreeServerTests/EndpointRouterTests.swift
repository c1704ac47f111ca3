import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import PushKitFreeCore
@testable import PushKitFreeServer
import Testing

/// The router and its middleware, answered in process (no socket): the routes are the catalogue's,
/// 405 with `Allow` where Hummingbird's router alone would answer 404, HEAD, the secret and
/// `--open-registration`, and the request id.
@Suite("register-apns serve: router and middleware")
struct EndpointRouterTests {
    /// A server's routes over a state file in a fresh directory; `secret` turns authentication on.
    final class Endpoint: Sendable {
        let service: EndpointService
        let responder: RouterResponder<EndpointRequestContext>
        let directory: String

        init(secret: String? = nil, openRegistration: [String] = []) throws {
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
                configuration: configuration, listen: .default, secretFile: secretFile, noAuth: secret == nil,
                rateLimit: 0, tls: nil, deliveryPolicy: DeliveryPolicy(), notificationPolicy: NotificationPolicy(),
                openRegistration: try openRegistration.map { try IPNetwork(parsing: $0) })
            let delivery = EndpointDelivery(
                configuration: configuration, deliveryPolicy: settings.deliveryPolicy,
                notificationPolicy: settings.notificationPolicy
            ) { _ in }
            service = EndpointService(settings: settings, delivery: delivery, metrics: EndpointMetrics())
            responder = EndpointRouter.make(service).buildResponder()
        }

        /// The answer to one request from `client`: status, headers and body text.
        func request(
            _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: String = "",
            client: String = "127.0.0.1"
        ) async throws -> (status: Int, headers: HTTPFields, body: String) {
            let channel = EmbeddedChannel()
            try await channel.connect(to: SocketAddress(ipAddress: client, port: 40_000)).get()
            let context = EndpointRequestContext(
                source: ApplicationRequestContextSource(
                    channel: channel, logger: Logger(label: "test")))
            let head = HTTPRequest(
                method: method, scheme: "http", authority: "localhost", path: path,
                headerFields: headers)
            let response = try await responder.respond(
                to: Request(head: head, body: RequestBody(buffer: ByteBuffer(string: body))), context: context)
            let collected = Collected()
            try await response.body.write(BodyCollector(collected: collected))
            return (Int(response.status.code), response.headers, String(decoding: collected.bytes, as: UTF8.self))
        }

        func shutdown() async {
            await service.writes.shutdown()
            await service.delivery.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    final class Collected: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    struct BodyCollector: ResponseBodyWriter {
        let collected: Collected
        mutating func write(_ buffer: ByteBuffer) async throws { collected.bytes += buffer.readableBytesView }
        mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
            for buffer in buffers { collected.bytes += buffer.readableBytesView }
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    @Test("the router serves exactly the catalogue's routes, each family in its group")
    func routesAreTheCatalogue() async throws {
        let endpoint = try Endpoint()
        let router = EndpointRouter.make(endpoint.service)
        let routed = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
        #expect(routed == Set(EndpointRoute.allCases.map { "\($0.method) \($0.path)" }))
        await endpoint.shutdown()
    }

    @Test("a known path with another method is 405 with Allow, a literal path is never a {token}, the rest 404")
    func methodNotAllowed() async throws {
        let endpoint = try Endpoint()
        let put = try await endpoint.request(.put, "/health")
        #expect(put.status == 405 && put.headers[.allow] == "GET, HEAD")
        #expect(put.body.contains("/health does not take PUT"))
        let literal = try await endpoint.request(.delete, "/api/v1/devices/register")
        #expect(literal.status == 405 && literal.headers[.allow] == "POST")
        #expect(literal.body.contains("\"detail\""), "OpenClaw's paths answer with detail")
        let head = try await endpoint.request(.head, "/register-apns")
        #expect(head.status == 405 && head.headers[.allow] == "POST" && head.body.isEmpty)
        let custom = try await endpoint.request(HTTPRequest.Method("PROPFIND")!, "/api/v1/devices")
        #expect(custom.status == 405 && custom.headers[.allow] == "GET, HEAD")
        let nowhere = try await endpoint.request(.post, "/nowhere")
        #expect(nowhere.status == 404 && nowhere.body.contains("no route POST /nowhere"))
        #expect(nowhere.headers[.contentType] == "application/json" && nowhere.headers[RequestID.header] != nil)
        await endpoint.shutdown()
    }

    @Test("HEAD is GET without the body; the request id is kept when valid, made otherwise")
    func headAndRequestID() async throws {
        let endpoint = try Endpoint()
        let get = try await endpoint.request(.get, "/health/live", headers: [RequestID.header: "proxy-7"])
        let head = try await endpoint.request(.head, "/health/live")
        #expect(get.status == 200 && get.body == "{\"status\":\"alive\"}\n")
        #expect(get.headers[RequestID.header] == "proxy-7")
        #expect(head.status == 200 && head.body.isEmpty && head.headers[.contentType] == "application/json")
        let made = try await endpoint.request(.get, "/health/live", headers: [RequestID.header: "no spaces allowed"])
        #expect(made.headers[RequestID.header]?.count == 16)
        await endpoint.shutdown()
    }

    @Test("the secret: 401 without it, the health checks open, an open network registers but never lists")
    func authentication() async throws {
        let endpoint = try Endpoint(secret: "s3cret", openRegistration: ["10.10.10.0/24"])
        let token = String(repeating: "ab", count: 32)
        let registration = #"{"device_token": "phone", "apns_token": "\#(token)"}"#
        #expect(try await endpoint.request(.get, "/health/live").status == 200)
        let missing = try await endpoint.request(.get, "/metrics")
        #expect(missing.status == 401 && missing.headers[.wwwAuthenticate] == "Bearer")
        #expect(try await endpoint.request(.get, "/metrics", headers: [.authorization: "Bearer nope"]).status == 401)
        #expect(try await endpoint.request(.get, "/metrics", headers: [.authorization: "Bearer s3cret"]).status == 200)
        let outsider = try await endpoint.request(.post, "/register-apns", body: registration, client: "10.10.11.5")
        #expect(outsider.status == 401)
        let neighbour = try await endpoint.request(.post, "/register-apns", body: registration, client: "10.10.10.5")
        #expect(neighbour.status == 200, "\(neighbour.body)")
        #expect(try await endpoint.request(.get, "/api/v1/devices", client: "10.10.10.5").status == 401)
        let unregister = try await endpoint.request(
            .post, "/hooks/ios-device", body: #"{"action": "unregister", "device_token": "phone"}"#,
            client: "10.10.10.5")
        #expect(unregister.status == 401 && unregister.body.contains("unregistering needs the secret"))
        let listed = try await endpoint.request(
            .get, "/api/v1/devices",
            headers: [AuthMiddleware.openClawAuth: "s3cret"])
        #expect(listed.status == 200 && listed.body.contains("\"count\":1"))
        await endpoint.shutdown()
    }
}
