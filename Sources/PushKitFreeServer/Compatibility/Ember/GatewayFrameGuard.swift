import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Sits just after a WebSocket connection's frame decoder: closes the connection with 1002 (protocol
/// error) on a frame its client did not mask, which RFC 6455 (5.1) requires of a server, and reports
/// every masked frame as the connection's activity (`ConnectionLimit.active`), so that a socket in use
/// is the last to be closed to make room.
final class GatewayFrameGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The close frame's reason.
    static let unmaskedReason = "a client's frames must be masked (RFC 6455, 5.1)"

    private let activity: () -> Void
    private var closing = false

    init(activity: @escaping () -> Void) {
        self.activity = activity
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let frame = unwrapInboundIn(data)
        guard frame.maskKey != nil else {
            closing = true
            var reason = context.channel.allocator.buffer(capacity: 2 + Self.unmaskedReason.utf8.count)
            reason.write(webSocketErrorCode: .protocolError)
            reason.writeString(Self.unmaskedReason)
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: reason)
            context.writeAndFlush(wrapOutboundOut(close)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        activity()
        context.fireChannelRead(data)
    }
}

/// Waits at the end of a new connection's pipeline, behind SwiftNIO's upgrade handler, for the
/// connection's fate: when it becomes a WebSocket (`HTTPServerUpgradeEvents.upgradeComplete`, fired
/// once the frame decoder is in place and before any frame is read) it puts a `GatewayFrameGuard`
/// right after the decoder and reports the upgrade; when a plain request passes instead, it has no
/// more to do. Either way it then leaves the pipeline, passing everything on untouched.
final class UpgradeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let upgraded: () -> Void
    private let frame: () -> Void

    /// - Parameters:
    ///   - upgraded: called when the connection has become a WebSocket.
    ///   - frame: called for each frame the WebSocket's client sends.
    init(upgraded: @escaping () -> Void, frame: @escaping () -> Void) {
        self.upgraded = upgraded
        self.frame = frame
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .upgradeComplete = event as? HTTPServerUpgradeEvents {
            let operations = context.pipeline.syncOperations
            if let decoder = try? operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self) {
                do {
                    try operations.addHandler(GatewayFrameGuard(activity: frame), position: .after(decoder))
                } catch {
                    context.close(promise: nil)
                }
            } else {
                context.close(promise: nil)
            }
            upgraded()
            context.fireUserInboundEventTriggered(event)
            operations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
