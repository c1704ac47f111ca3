#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Tells the protocols that arrive on the emulator's port apart by their first bytes, then
/// configures the pipeline for it and steps aside:
/// - a TLS handshake record (0x16): TLS (ALPN `h2`), then sniff again inside;
/// - the HTTP/2 connection preface `PRI * HTTP/2.0`: HTTP/2 with prior knowledge;
/// - a request line (an uppercase letter first) when HTTP/1.1 is served (Google's routes, see
///   `FCMHTTP1Handler`): HTTP/1.1;
/// - anything else (HTTP/1.1 without FCM, garbage): a short `505` in HTTP/1.1 words and close,
///   since APNs speaks only HTTP/2.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What was found.
    enum Detected {
        case tls
        case http2
        case http1
    }

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let allowsTLS: Bool
    private let allowsHTTP1: Bool
    private let configure: (Detected, ChannelHandlerContext) throws -> Void
    private let reportError: (any Error) -> Void
    private var buffered: ByteBuffer?
    private var decided = false

    /// - Parameters:
    ///   - allowsTLS: whether a TLS handshake is acceptable here (not inside TLS).
    ///   - allowsHTTP1: whether HTTP/1.1 is served (else refused with 505).
    ///   - configure: adds the handlers for the protocol found right after this one.
    ///   - reportError: shows a connection error to the user.
    init(
        allowsTLS: Bool, allowsHTTP1: Bool = false,
        configure: @escaping (Detected, ChannelHandlerContext) throws -> Void,
        reportError: @escaping (any Error) -> Void
    ) {
        self.allowsTLS = allowsTLS
        self.allowsHTTP1 = allowsHTTP1
        self.configure = configure
        self.reportError = reportError
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if decided {
            context.fireChannelRead(data)
            return
        }
        var incoming = unwrapInboundIn(data)
        if buffered == nil {
            buffered = incoming
        } else {
            buffered!.writeBuffer(&incoming)
        }
        guard let bytes = buffered, let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        if allowsTLS, first == 0x16 {
            decide(.tls, context: context)
            return
        }
        let count = min(bytes.readableBytes, Self.preface.count)
        let start = bytes.readerIndex
        let matches = bytes.withUnsafeReadableBytes { raw in
            (0..<count).allSatisfy { raw[$0] == Self.preface[$0] }
        }
        let plaintext = bytes.getInteger(at: start, as: UInt8.self).map { $0 >= 0x41 && $0 <= 0x5A } ?? false
        if !matches, allowsHTTP1, plaintext {
            decide(.http1, context: context)
        } else if !matches {
            refuse(context: context, plaintext: plaintext)
        } else if count >= 4 {
            decide(.http2, context: context)
        }
    }

    private func decide(_ found: Detected, context: ChannelHandlerContext) {
        decided = true
        do {
            try configure(found, context)
        } catch {
            reportError(error)
            context.close(promise: nil)
            return
        }
        if let buffered {
            self.buffered = nil
            context.fireChannelRead(wrapInboundOut(buffered))
            context.fireChannelReadComplete()
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Answers a client that does not speak HTTP/2 and closes.
    private func refuse(context: ChannelHandlerContext, plaintext: Bool) {
        decided = true
        buffered = nil
        guard plaintext else {
            context.close(promise: nil)
            return
        }
        let body =
            "apns-emulator speaks HTTP/2 only, as APNs does: use HTTPS with ALPN h2 (curl --http2) or HTTP/2 with prior knowledge (curl --http2-prior-knowledge)\n"
        let response =
            "HTTP/1.1 505 HTTP Version Not Supported\r\ncontent-type: text/plain\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n"
            + body
        let buffer = context.channel.allocator.buffer(string: response)
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        reportError(error)
        context.close(promise: nil)
    }
}

/// The first handler of every connection: it can reset the TCP connection (RST, no TLS alert, no
/// answer) for `--drop-after`, because a close that starts here bypasses the TLS handler.
final class ConnectionResetHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Sets SO_LINGER to zero and closes, so the kernel answers with RST.
    func reset() {
        guard let context else { return }
        guard let provider = context.channel as? any SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
