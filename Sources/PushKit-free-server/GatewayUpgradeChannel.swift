import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The server's connections: HTTP/1.1 with the WebSocket upgrade of `GET /gateway/ws`, and no other.
///
/// hummingbird-websocket's channel hands every request that carries an `Upgrade` header to SwiftNIO's
/// upgrade handler, which answers anything it cannot upgrade with a bare 400 or a dropped connection:
/// `curl --http2` on a plain-HTTP URL (`Upgrade: h2c`), or an upgrade asked of another route, would
/// then get nothing. A server may ignore `Upgrade` (RFC 9110, 7.8), so `UpgradeRequestFilter` takes
/// the header off every request but a WebSocket upgrade of `/gateway/ws`, and those are served as
/// before.
struct GatewayUpgradeChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let base: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let upgrader = try operations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try operations.addHandler(UpgradeRequestFilter(), position: .before(upgrader))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Takes `Upgrade` off the connection's first request head unless it is a WebSocket upgrade of
/// `GET /gateway/ws`, then leaves the pipeline: SwiftNIO's upgrade handler looks at the first request
/// only (after it, hummingbird-websocket answers a WebSocket upgrade with a redirect to a new
/// connection and serves the rest as HTTP), and after an upgrade the bytes are WebSocket frames.
final class UpgradeRequestFilter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var part = data
        if case .head(var head) = unwrapInboundIn(data), head.headers.contains(name: "upgrade"),
            !Self.asksForGatewaySocket(head)
        {
            head.headers.remove(name: "upgrade")
            part = wrapInboundOut(.head(head))
        }
        context.fireChannelRead(part)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Whether `head` asks for the WebSocket of `/gateway/ws` (a trailing slash and the query aside).
    static func asksForGatewaySocket(_ head: HTTPRequestHead) -> Bool {
        var path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return head.method == .GET && path == EndpointRoute.gatewaySocket.path
            && head.headers["upgrade"].contains { $0.lowercased().contains("websocket") }
    }
}
