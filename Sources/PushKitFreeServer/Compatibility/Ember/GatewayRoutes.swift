#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdWebSocket
import PushKitFreeCore

/// The Ember design's gateway (`../shared/seeds/002_4c69616b36cde766.txt`): its push messages,
/// under `/gateway` (`GatewayMessage`, `GatewaySession`):
/// - `GET /gateway/ws`, and `GET /` (the Ember app's gateway URL is a bare `ws://host:port`): a
///   WebSocket; each text message is answered with one reply message. A plain `GET` without the
///   upgrade is 426.
/// - `POST /gateway/messages`: one message as the body, its reply as the answer (200), or the
///   `error` message with the 4xx or 5xx an HTTP route gives.
///
/// The WebSocket upgrade is served by a router of its own (`socketRouter`), which hummingbird-websocket
/// asks before it upgrades a request (`GatewayUpgradeChannel` lets only `/gateway/ws` ask); the
/// endpoint's router serves everything else. Each connection is a `GatewaySocket`.
///
/// Retirement: once the Ember app registers and sets its briefing through another route, delete
/// this folder, its line in `EndpointRouter.make` and the socket router and upgrade channel in
/// `buildApplication` (the server becomes plain HTTP/1.1), the `ember-*` golden fixtures and its
/// paths in docs/openapi.yaml. Briefing settings it stored stay in the registry.
struct GatewayRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    /// The per-client allowance each message that changes the registry spends.
    let limiter: RateLimiter

    /// The WebSocket's path.
    static let socketPath = "/gateway/ws"
    /// The Ember app's gateway URL, a bare `ws://host:port`: its WebSocket upgrades here too.
    static let rootPath = "/"
    /// The path one message is posted to.
    static let messagesPath = "/gateway/messages"

    /// Adds the HTTP routes under `/gateway`, and `GET /`.
    func add(to groups: EndpointRouteGroups) {
        groups.answerErrors(in: EmberErrors())
        groups.gateway.get("/", use: socketWithoutUpgrade)
        let group = groups.gateway.group("gateway")
        group.get("ws", use: socketWithoutUpgrade)
        group.post("messages", use: message)
    }

    @Sendable func socketWithoutUpgrade(_ request: Request, context: Context) async throws -> Response {
        throw EndpointError(
            status: 426,
            "\(request.uri.path) is the gateway's WebSocket: connect with Upgrade: websocket (or POST each "
                + "message to /gateway/messages)", headers: ["Upgrade": "websocket"])
    }

    @Sendable func message(_ request: Request, context: Context) async throws -> Response {
        let data = try await request.bodyBytes(limit: GatewayMessage.sizeLimit)
        var session = GatewaySession(
            registrations: registrations, limiter: limiter, transport: .http, client: context.client,
            trusted: !context.openNetwork)
        let message = try GatewayMessage(data)
        defer { context.notes.token = session.token }
        return .json(try await session.answer(message) ?? GatewayReply.ack)
    }

    /// The router hummingbird-websocket consults for a request to upgrade: `/gateway/ws` and `/` only.
    ///
    /// The secret is checked before the upgrade (`UpgradeRequestFilter` asks `AuthMiddleware.wouldAdmit`
    /// and lets the router answer 401 or 429 to an upgrade it refuses), and again once the socket is
    /// open, where a refusal is an `error` message and a close (1008, policy violation).
    static func socketRouter(_ socket: GatewaySocket) -> Router<Context> {
        let router = Router(context: Context.self)
        router.add(middleware: RequestIDMiddleware())
        router.group("gateway").ws("ws") { inbound, outbound, context in
            try await socket.serve(inbound: inbound, outbound: outbound, context: context, route: Self.socketPath)
        }
        router.ws("/") { inbound, outbound, context in
            try await socket.serve(inbound: inbound, outbound: outbound, context: context, route: Self.rootPath)
        }
        return router
    }
}
