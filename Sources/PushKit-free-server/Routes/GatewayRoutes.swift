#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket
import PushKitFreeCore

/// The Ember gateway's push messages, under `/gateway` (`GatewayMessage`, `GatewaySession`):
/// - `GET /gateway/ws`: a WebSocket; each text message is answered with one reply message. A plain
///   `GET` without the upgrade is 426.
/// - `POST /gateway/messages`: one message as the body, its reply as the answer (200), or the
///   `error` message with the 4xx or 5xx an HTTP route gives.
///
/// The WebSocket upgrade is served by a router of its own (`socketRouter`), which hummingbird-websocket
/// asks before it upgrades a request; the endpoint's router serves everything else.
struct GatewayRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let service: EndpointService

    /// Adds the HTTP routes to a group at `/gateway`.
    func add(to group: RouterGroup<Context>) {
        group.get("ws", use: socketWithoutUpgrade)
        group.post("messages", use: message)
    }

    @Sendable func socketWithoutUpgrade(_ request: Request, context: Context) async throws -> Response {
        throw EndpointError(
            status: 426,
            "/gateway/ws is a WebSocket: connect with Upgrade: websocket (or POST each message "
                + "to /gateway/messages)", headers: ["Upgrade": "websocket"])
    }

    @Sendable func message(_ request: Request, context: Context) async throws -> Response {
        let data = try await request.bodyBytes(limit: GatewayMessage.sizeLimit)
        var session = GatewaySession(service: service, transport: .http, client: context.client)
        let message = try GatewayMessage(data)
        defer { context.notes.token = session.token }
        return .json(try await session.answer(message))
    }

    /// The router hummingbird-websocket consults for a request to upgrade: `/gateway/ws` only.
    ///
    /// The secret is checked once the socket is open (`AuthMiddleware.admit`), so that a client
    /// without it reads why in an `error` message before the close (1008, policy violation); a refused
    /// upgrade could only be answered with a bare 400. Nothing the client sends is read before.
    static func socketRouter(_ service: EndpointService) -> Router<Context> {
        let router = Router(context: Context.self)
        router.add(middleware: RequestIDMiddleware())
        let socket = GatewaySocket(
            service: service,
            auth: AuthMiddleware(secret: service.settings.secret, openRegistration: service.settings.openRegistration))
        router.group("gateway").ws("ws") { inbound, outbound, context in
            try await socket.serve(inbound: inbound, outbound: outbound, context: context)
        }
        return router
    }
}

/// One WebSocket connection to `/gateway/ws`: the secret, then each message answered in order.
/// Whatever one connection sends or does ends at most that connection.
struct GatewaySocket: Sendable {
    typealias Context = EndpointRequestContext
    let service: EndpointService
    let auth: AuthMiddleware

    func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        context socketContext: WebSocketRouterContext<Context>
    ) async throws {
        let request = socketContext.request
        let context = socketContext.requestContext
        let opened = ContinuousClock.now
        do throws(EndpointError) {
            _ = try auth.admit(request, client: context.client, route: .gatewaySocket)
        } catch {
            log(context, status: Int(error.status.code), since: opened, token: nil, message: nil)
            try await outbound.write(.text(Self.reply(error, requestID: context.requestID).serializedString()))
            try await outbound.close(.policyViolation, reason: Self.closeReason(error.message))
            return
        }
        log(context, status: 101, since: opened, token: nil, message: nil)
        var session = GatewaySession(service: service, transport: .socket, client: context.client)
        for try await frame in inbound.messages(maxSize: GatewayMessage.sizeLimit) {
            let started = ContinuousClock.now
            var type: String?
            let reply: JSONValue
            let status: Int
            do throws(EndpointError) {
                guard case .text(let text) = frame else {
                    throw .badRequest("a binary message is not one of the gateway's: send JSON as text")
                }
                let message = try GatewayMessage(Data(text.utf8))
                type = message.type
                reply = try await session.answer(message)
                status = 200
            } catch {
                if let detail = error.logDetail {
                    StandardStreams.writeError(
                        "\(EndpointServer.tool): error: request \(context.requestID): WS /gateway/ws "
                            + "\(error.status.code): \(error.message): \(detail)\n")
                }
                reply = Self.reply(error, requestID: context.requestID)
                status = Int(error.status.code)
            }
            log(context, status: status, since: started, token: session.token, message: type ?? "-")
            try await outbound.write(.text(reply.serializedString()))
        }
    }

    /// The `error` message for `error`: its text, and the request id when the log has more.
    static func reply(_ error: EndpointError, requestID: String) -> JSONValue {
        var body = error.body(gateway: true, requestID: requestID).objectValue ?? [:]
        body["error"] = nil
        return .object(body)
    }

    /// A close frame's reason holds at most 123 bytes (RFC 6455, 5.5: 125 with the code).
    static func closeReason(_ text: String) -> String {
        var reason = ""
        for character in text {
            guard reason.utf8.count + String(character).utf8.count <= 123 else { break }
            reason.append(character)
        }
        return reason
    }

    /// The access-log line of the upgrade (`message` nil: `GET`, with its metrics) or of one message (`WS`).
    private func log(
        _ context: Context, status: Int, since start: ContinuousClock.Instant, token: DeviceToken?, message: String?
    ) {
        let seconds = start.secondsElapsed
        let path = EndpointRoute.gatewaySocket.path
        if message == nil {
            service.metrics.request(route: path, method: "GET", status: status, seconds: seconds)
        }
        StandardStreams.writeError(
            AccessLog.line(
                client: context.client, method: message == nil ? "GET" : "WS", path: path, status: status,
                seconds: seconds, token: token, message: message))
    }
}
