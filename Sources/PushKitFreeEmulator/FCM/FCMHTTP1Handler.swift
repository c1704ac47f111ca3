import NIOCore
import NIOHTTP1

/// Serves Google's routes (the OAuth token endpoint and FCM's v1 API) to an HTTP/1.1 client, as
/// Google does: OAuth and FCM clients often speak HTTP/1.1 (Python's `requests`, for one). Every
/// other path is answered `505`, since APNs speaks only HTTP/2.
final class FCMHTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Bodies beyond this many bytes are answered 400 and the connection closed.
    static let bodyLimit = 64 * 1024

    private let services: EmulatorServices
    private let connection: Int
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    private var requests = 0

    init(services: EmulatorServices, connection: Int) {
        self.services = services
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            tooLarge = false
        case .body(let buffer):
            if body.count + buffer.readableBytes > Self.bodyLimit {
                tooLarge = true
            } else {
                body.append(contentsOf: buffer.readableBytesView)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            requests += 1
            answer(head, context: context)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let keepAlive = head.isKeepAlive && !tooLarge
        guard let fcm = services.fcm, FCMEndpoint.serves(path: head.uri) else {
            let text =
                "apns-emulator speaks HTTP/2 only, as APNs does (HTTP/1.1 serves only Google's /token and /v1/ routes)\n"
            write(
                status: .httpVersionNotSupported, headers: [], contentType: "text/plain", body: Array(text.utf8),
                version: head.version, keepAlive: false, context: context)
            return
        }
        let headers = head.headers.map { (name: $0.name.lowercased(), value: $0.value) }
        let response =
            tooLarge
            ? fcm.respondTooLarge(
                method: head.method.rawValue, path: head.uri, bodySize: Self.bodyLimit, connection: connection,
                stream: requests)
            : fcm.respond(
                method: head.method.rawValue, path: head.uri, headers: headers, body: body, connection: connection,
                stream: requests)
        services.records.append(response.recordLine)
        services.summaries?.append(response.summary)
        services.flushOutputs()
        write(
            status: HTTPResponseStatus(statusCode: response.status), headers: response.headers,
            contentType: "application/json", body: response.body, version: head.version, keepAlive: keepAlive,
            context: context)
    }

    private func write(
        status: HTTPResponseStatus, headers extra: [(String, String)], contentType: String, body: [UInt8],
        version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders(extra)
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "content-length", value: String(body.count))
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        services.report(error, connection: connection)
        context.close(promise: nil)
    }
}
