import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The server's connections: HTTP/1.1 with the WebSocket upgrade of `GET /gateway/ws`, and no other.
///
/// Every connection is counted in `limit`, in all and per client address, and must send a complete
/// request head within `headerTimeout` of being accepted (`RequestHeadDeadline`), and each request's
/// body within the same time of its head (`RequestProgress`); a request that cannot be parsed is
/// answered 400 and the connection closed (SwiftNIO's `HTTPServerProtocolErrorHandler`, which
/// hummingbird-websocket leaves out). hummingbird-websocket adds its idle timeout only once the
/// first request is known not to be an upgrade, so without these a client that never finishes its
/// head held its connection, and a file descriptor, for as long as it liked.
///
/// hummingbird-websocket's channel hands every request that carries an `Upgrade` header to SwiftNIO's
/// upgrade handler, which answers anything it cannot upgrade with a bare 400 or a dropped connection:
/// `curl --http2` on a plain-HTTP URL (`Upgrade: h2c`), or an upgrade asked of another route, would
/// then get nothing. A server may ignore `Upgrade` (RFC 9110, 7.8), so `UpgradeRequestFilter` takes
/// the header off every request but a WebSocket upgrade of `/gateway/ws` that the secret (or an
/// `--open-registration` network) admits: the others are answered by the router as plain requests
/// (401, 429, or 426 for a plain `GET`), and the connection is closed after the answer. Nothing is
/// upgraded before it is authenticated.
///
/// Once upgraded, a connection is idle between messages (`ConnectionLimit.upgraded`), so the table
/// can close it to make room; `GatewayFrameGuard` closes it (1002) on a frame its client did not
/// mask and reports each frame as activity; hummingbird-websocket pings it every `pingInterval` and
/// closes it when a ping goes unanswered.
struct GatewayUpgradeChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let base: HTTP1WebSocketUpgradeChannel
    let headerTimeout: Duration
    let limit: ConnectionLimit
    /// Who may upgrade: the gateway's own authentication, asked without spending anything.
    let auth: AuthMiddleware
    /// Told when a connection is closed for missing its head's or its body's deadline.
    var timedOut: @Sendable (RequestDeadline) -> Void = { _ in }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let client = channel.remoteAddress?.ipAddress ?? "unknown"
        guard let ticket = limit.open(channel, client: client) else {
            return channel.close().flatMapThrowing { throw ChannelError.ioOnClosedChannel }
        }
        let limit = self.limit
        let auth = self.auth
        let timedOut = self.timedOut
        channel.closeFuture.whenComplete { _ in limit.closed(ticket) }
        let timeout = TimeAmount(headerTimeout)
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let deadline = RequestHeadDeadline(timeout: timeout) { timedOut(.head) }
            try operations.addHandler(deadline, position: .first)
            let upgrader = try operations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            let errors = HTTPServerProtocolErrorHandler()
            let closer = ParseErrorClose()
            let progress = RequestProgress(timeout: timeout, limit: limit, ticket: ticket) { timedOut(.body) }
            try operations.addHandlers([errors, closer, progress], position: .before(upgrader))
            let filter = UpgradeRequestFilter(
                errorHandlers: [errors, closer, progress],
                mayUpgrade: { head in
                    auth.wouldAdmit(
                        authorization: head.headers.first(name: "authorization"),
                        openClawAuth: head.headers.first(name: AuthMiddleware.openClawAuth.rawName), client: client)
                },
                headReceived: {
                    deadline.headReceived()
                    limit.headReceived(ticket)
                })
            try operations.addHandler(filter, position: .before(upgrader))
            try operations.addHandler(
                UpgradeObserver(upgraded: { limit.upgraded(ticket) }, frame: { limit.active(ticket) }))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Takes `Upgrade` off the connection's first request head unless it is a WebSocket upgrade of
/// `GET /gateway/ws` with exactly one `Host` that `mayUpgrade` admits, then leaves the pipeline:
/// SwiftNIO's upgrade handler looks at the first request only (after it, hummingbird-websocket
/// answers a WebSocket upgrade with a redirect to a new connection and serves the rest as HTTP), and
/// after an upgrade the bytes are WebSocket frames.
///
/// A WebSocket upgrade it refuses goes on as a plain request with `Connection: close`: the router
/// answers it (401, 429, 400 or 426) and closes the connection, since a client that asked for a
/// WebSocket sends no second request.
///
/// It also reports the first head (`headReceived`), and takes the HTTP error handlers out along with
/// itself when the connection becomes a WebSocket.
final class UpgradeRequestFilter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let errorHandlers: [any RemovableChannelHandler]
    private let mayUpgrade: (HTTPRequestHead) -> Bool
    private let headReceived: () -> Void

    /// - Parameters:
    ///   - errorHandlers: the handlers that answer parse errors, which see HTTP parts only: taken out
    ///     when the connection becomes a WebSocket.
    ///   - mayUpgrade: whether the credentials of a WebSocket upgrade of `/gateway/ws` admit it.
    ///   - headReceived: called with the first request head.
    init(
        errorHandlers: [any RemovableChannelHandler] = [],
        mayUpgrade: @escaping (HTTPRequestHead) -> Bool = { _ in true },
        headReceived: @escaping () -> Void = {}
    ) {
        self.errorHandlers = errorHandlers
        self.mayUpgrade = mayUpgrade
        self.headReceived = headReceived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var part = data
        if case .head(var head) = unwrapInboundIn(data) {
            headReceived()
            let asksForSocket = Self.asksForGatewaySocket(head)
            if asksForSocket, head.headers["host"].count == 1, mayUpgrade(head) {
                for handler in errorHandlers { context.pipeline.syncOperations.removeHandler(handler, promise: nil) }
            } else if head.headers.contains(name: "upgrade") {
                head.headers.remove(name: "upgrade")
                if asksForSocket {
                    head.headers.replaceOrAdd(name: "connection", value: "close")
                }
                part = wrapInboundOut(.head(head))
            }
        }
        context.fireChannelRead(part)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Whether `head` asks for the gateway's WebSocket, at `/gateway/ws` or `/` (a trailing slash and
    /// the query aside).
    static func asksForGatewaySocket(_ head: HTTPRequestHead) -> Bool {
        var path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        let socketPaths = [GatewayRoutes.socketPath, GatewayRoutes.rootPath]
        return head.method == .GET && socketPaths.contains(String(path))
            && head.headers["upgrade"].contains { $0.lowercased().contains("websocket") }
    }
}
