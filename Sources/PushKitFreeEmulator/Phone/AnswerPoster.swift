#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Posts an answer as the app does: one HTTP/1.1 `POST` of a JSON body to the question's answer
/// URL, over TLS for `https` (the system's trust roots and any `--answer-ca`, the host name or IP
/// address verified).
///
/// Bounded like an app's request: `connectTimeout` to connect, `totalTimeout` for the whole
/// exchange, at most `responseLimit` bytes of answer. Runs on the event loop it is given.
final class AnswerPoster: Sendable {
    /// How long connecting may take.
    static let connectTimeout = TimeAmount.seconds(5)
    /// How long the whole exchange may take, connecting included.
    static let totalTimeout = TimeAmount.seconds(10)
    /// The largest answer body read, in bytes.
    static let responseLimit = 64 * 1024

    /// What the server answered.
    struct Answer: Sendable, Equatable {
        var status: Int
        var body: [UInt8]
    }

    /// Why no answer came, in words for the control route's `502`.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    private let connectTimeout: TimeAmount
    private let totalTimeout: TimeAmount
    /// CA certificates trusted besides the system's roots.
    private let additionalTrust: [NIOSSLCertificate]
    /// Made on the first `https` answer URL: reading the system's trust roots is not free.
    private let tlsContext = Mutex<NIOSSLContext?>(nil)

    init(
        connectTimeout: TimeAmount = AnswerPoster.connectTimeout, totalTimeout: TimeAmount = AnswerPoster.totalTimeout,
        additionalTrust: [NIOSSLCertificate] = []
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.additionalTrust = additionalTrust
    }

    /// Posts `body` (JSON) to `url`; the future fails with `Failure` when no whole answer came.
    func post(_ body: [UInt8], to url: AnswerURL, on eventLoop: any EventLoop) -> EventLoopFuture<Answer> {
        let promise = eventLoop.makePromise(of: Answer.self)
        let tls: NIOSSLContext?
        do {
            tls = url.isSecure ? try sharedTLSContext() : nil
        } catch {
            promise.fail(Failure(message: "cannot set up TLS: \(error)"))
            return promise.futureResult
        }
        let request = AnswerRequestParts(url: url, body: body)
        let timeout = totalTimeout
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        let handler = try NIOSSLClientHandler(
                            context: tls, serverHostname: url.isIPAddress ? nil : url.host)
                        try sync.addHandler(handler)
                    }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(AnswerExchangeHandler(request: request, promise: promise))
                }
            }
        let deadline = eventLoop.scheduleTask(in: timeout) {
            promise.fail(
                Failure(message: "no answer from \(url.authority) within \(timeout.nanoseconds / 1_000_000_000) s"))
        }
        let connected = bootstrap.connect(host: url.host, port: url.port)
        connected.whenFailure { error in
            promise.fail(Failure(message: "cannot connect to \(url.authority): \(Self.describe(error))"))
        }
        promise.futureResult.whenComplete { _ in
            deadline.cancel()
            connected.whenSuccess { $0.close(promise: nil) }
        }
        return promise.futureResult
    }

    private func sharedTLSContext() throws -> NIOSSLContext {
        try tlsContext.withLock { context in
            if let context { return context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["http/1.1"]
            if !additionalTrust.isEmpty { configuration.additionalTrustRoots = [.certificates(additionalTrust)] }
            let made = try NIOSSLContext(configuration: configuration)
            context = made
            return made
        }
    }

    /// A connection failure in words: the system's message for an errno, else NIO's description.
    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return describe(first.error) }
            if let resolution = error.dnsAAAAError ?? error.dnsAError {
                return "cannot resolve \(error.host): \(describe(resolution))"
            }
            return "cannot resolve \(error.host)"
        }
        if let error = error as? SocketAddressError.UnknownHost {
            return "cannot resolve \(error.host) (\(error.errorDescription.lowercased()))"
        }
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? ChannelError, case .connectTimeout(let amount) = error {
            return "no connection within \(amount.nanoseconds / 1_000_000_000) s"
        }
        if let error = error as? NIOSSLError {
            let text = "\(error)"
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return "TLS: the server's certificate does not verify with the system's trust roots (or --answer-ca)"
            }
            return "TLS: \(text)"
        }
        if let error = error as? NIOSSLExtraError { return "TLS: \(error)" }
        return "\(error)"
    }
}

/// The request's parts, made once: what the exchange writes when the connection opens.
private struct AnswerRequestParts: Sendable {
    var head: HTTPRequestHead
    var body: [UInt8]

    init(url: AnswerURL, body: [UInt8]) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.hostHeader)
        headers.add(name: "User-Agent", value: "apns-emulator (playing the app)")
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        head = HTTPRequestHead(version: .http1_1, method: .POST, uri: url.target, headers: headers)
        self.body = body
    }
}

/// Writes the request once the connection is up and completes the promise with the whole answer,
/// or with why there is none.
private final class AnswerExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: AnswerRequestParts
    private let promise: EventLoopPromise<AnswerPoster.Answer>
    private var status: Int?
    private var body: [UInt8] = []

    init(request: AnswerRequestParts, promise: EventLoopPromise<AnswerPoster.Answer>) {
        self.request = request
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        let buffer = context.channel.allocator.buffer(bytes: request.body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // An interim answer (100 Continue) is not the answer.
            if head.status.code >= 200 { status = Int(head.status.code) }
        case .body(let buffer):
            guard status != nil else { return }
            if body.count + buffer.readableBytes > AnswerPoster.responseLimit {
                fail("the answer is larger than \(AnswerPoster.responseLimit / 1024) KiB", context: context)
                return
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let status else { return }
            promise.succeed(AnswerPoster.Answer(status: status, body: body))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(AnswerPoster.Failure(message: "the server closed the connection before the answer was complete"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(AnswerPoster.describe(error), context: context)
    }

    private func fail(_ message: String, context: ChannelHandlerContext) {
        promise.fail(AnswerPoster.Failure(message: message))
        context.close(promise: nil)
    }
}
