import NIOCore

/// Closes a connection that has not sent a complete request head within `timeout` of being accepted,
/// its TLS handshake included: a silent client, a slowloris trickling its head, a client speaking
/// another protocol, a TLS client that never finishes the handshake or never sends a request.
///
/// It sits first in the pipeline and passes everything on untouched; `UpgradeRequestFilter` calls
/// `headReceived()` when the first head is decoded. After that Hummingbird's idle timeout watches the
/// connection between requests.
final class RequestHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let timedOut: () -> Void
    private var scheduled: Scheduled<Void>?
    private var received = false

    /// - Parameter timedOut: called when the deadline closes the connection.
    init(timeout: TimeAmount, timedOut: @escaping () -> Void = {}) {
        self.timeout = timeout
        self.timedOut = timedOut
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard !received, scheduled == nil else { return }
        let timedOut = self.timedOut
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            timedOut()
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headReceived()
    }

    func channelInactive(context: ChannelHandlerContext) {
        headReceived()
        context.fireChannelInactive()
    }

    /// The request head arrived: the connection is no longer closed for want of it.
    func headReceived() {
        received = true
        scheduled?.cancel()
        scheduled = nil
    }
}

/// Which deadline closed a connection: the request head's (`RequestHeadDeadline`) or the body's
/// (`RequestProgress`).
enum RequestDeadline: String, Sendable {
    case head
    case body
}
