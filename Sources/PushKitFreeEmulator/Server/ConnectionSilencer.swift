import NIOCore

/// The first handler of every connection: once `silence()` is called, the connection plays a TCP
/// connection a NAT router has forgotten. Everything the client sends is read and thrown away, and
/// nothing is written back (no answers, no PING or SETTINGS acknowledgements, no GOAWAY, no TLS
/// alert), but the socket stays open: no FIN, no RST. The client learns nothing until it gives up
/// and closes, which ends the connection normally.
///
/// Set off by `--go-silent-after N` (the first connection to open stream N+1) or by
/// `POST /emulator/go-silent` (every connection open at that moment).
///
/// The kernel still acknowledges the client's TCP segments; a forgotten NAT mapping would not.
/// To an HTTP/2 client the two look alike: no frame arrives, however long it waits.
final class ConnectionSilencer: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Whether the connection has gone silent; it never speaks again.
    private(set) var isSilent = false

    /// Stops reading and answering from now on. Frames already decoded keep flowing up the
    /// pipeline, so the connection's handler checks `isSilent` before it answers or records.
    func silence() {
        isSilent = true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if isSilent { return }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if isSilent { return }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if isSilent {
            promise?.succeed()
            return
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        if isSilent { return }
        context.flush()
    }
}
