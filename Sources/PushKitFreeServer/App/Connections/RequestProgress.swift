import NIOCore
import NIOHTTP1

/// Follows each request of a connection after the first head, so that a client can hold a
/// connection only while it is sending a request at a reasonable pace or waiting for its answer:
/// - a request's body must end within `timeout` of its head, or the connection is closed (a client
///   that sends a head and then trickles, or never sends, the body it announced);
/// - once an answer is complete the connection may be dropped to make room again
///   (`ConnectionLimit.answered`), like one that never sent a head, until its next head arrives.
///
/// It sits between the HTTP codec and the upgrade handler and passes everything on untouched. The
/// WebSocket upgrade takes it out of the pipeline (`UpgradeRequestFilter`).
final class RequestProgress: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private let limit: ConnectionLimit
    private let ticket: ConnectionLimit.Ticket
    private let timedOut: () -> Void
    private var deadline: Scheduled<Void>?

    /// - Parameter timedOut: called when the body's deadline closes the connection.
    init(
        timeout: TimeAmount, limit: ConnectionLimit, ticket: ConnectionLimit.Ticket,
        timedOut: @escaping () -> Void = {}
    ) {
        self.timeout = timeout
        self.limit = limit
        self.ticket = ticket
        self.timedOut = timedOut
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            limit.headReceived(ticket)
            deadline?.cancel()
            let timedOut = self.timedOut
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                timedOut()
                context.close(promise: nil)
            }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { limit.answered(ticket) }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}
