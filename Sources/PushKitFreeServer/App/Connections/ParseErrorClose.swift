import NIOCore
import NIOHTTP1

/// Closes a connection whose request cannot be parsed, once SwiftNIO's
/// `HTTPServerProtocolErrorHandler` (just before it in the pipeline) has answered it 400.
///
/// Before the first request head is whole no one else would: the upgrade handler is still waiting
/// for it, and Hummingbird's request loop has not started. Reads pass through untouched.
final class ParseErrorClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { context.close(promise: nil) }
        context.fireErrorCaught(error)
    }
}
