import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PushKitFreeCore
import Synchronization
import Testing

@testable import PushKitFreeEmulator

/// A local HTTP/1.1 server standing in for serve's answer route: it keeps each request's target
/// and body and answers with the status and body it was given.
private final class AnswerRouteStub: Sendable {
    struct Seen: Sendable {
        var target: String
        var contentType: String?
        var body: [UInt8]
    }

    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// The requests received, oldest first.
    final class Log: Sendable {
        let list = Mutex<[Seen]>([])
    }

    let log = Log()
    let port: Int
    private let channel: any Channel

    /// - Parameter tls: serve HTTPS with this certificate chain and key (PEM) instead of HTTP.
    init(
        status: HTTPResponseStatus = .ok, body: [UInt8] = Array(#"{"state": "answered"}"#.utf8),
        tls: EmulatorTLSMaterial? = nil
    ) throws {
        let log = self.log
        let context = try tls.map { material in
            try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(material.certificateChainPEM.utf8))
                        .map { .certificate($0) },
                    privateKey: .privateKey(
                        try NIOSSLPrivateKey(bytes: Array(material.privateKeyPEM.utf8), format: .pem))))
        }
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        Responder(status: status, body: body) { request in log.list.withLock { $0.append(request) } })
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let status: HTTPResponseStatus
        let body: [UInt8]
        let keep: (Seen) -> Void
        var current: Seen?

        init(status: HTTPResponseStatus, body: [UInt8], keep: @escaping (Seen) -> Void) {
            (self.status, self.body, self.keep) = (status, body, keep)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                current = Seen(target: head.uri, contentType: head.headers.first(name: "content-type"), body: [])
            case .body(let buffer):
                current?.body.append(contentsOf: buffer.readableBytesView)
            case .end:
                if let current { keep(current) }
                var headers = HTTPHeaders()
                headers.add(name: "content-type", value: "application/json")
                headers.add(name: "content-length", value: String(body.count))
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                    promise: nil)
                context.write(
                    wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}

@Suite("emulator playing the phone: posting the answer")
struct EmulatorPhoneTests {
    static let question = "0123456789abcdef0123456789abcdef"

    /// A state holding one question push whose answer URL is `url`.
    static func state(answerURL url: String, payload: JSONValue? = nil) -> EmulatorState {
        let state = EmulatorState(devices: ScriptedDeviceStates(), seed: 1)
        var question = RecordedQuestionTests.question(Self.question, token: "device-token-A")
        if case .object(var object) = question, case .object(var pushkit)? = object["pushkit"] {
            pushkit["answer_url"] = .string(url)
            object["pushkit"] = .object(pushkit)
            question = .object(object)
        }
        state.didAnswer(accepted: true, recordLine: RecordedQuestionTests.record(payload: payload ?? question))
        return state
    }

    static func answer(
        _ state: EmulatorState, _ body: String, poster: AnswerPoster = AnswerPoster()
    ) throws
        -> (status: Int, json: JSONValue)
    {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let phone = EmulatorPhone(state: state, poster: poster, note: nil)
        let response = try phone.answer(body: Array(body.utf8), on: group.next()).wait()
        #expect(response.contentType == "application/json")
        return (response.status, try JSONValue.parse(Data(response.body)))
    }

    @Test("a tap is posted as the app posts it, and the server's status and body come back")
    func posts() throws {
        let stub = try AnswerRouteStub(body: Array(#"{"id": "x", "state": "answered"}"#.utf8))
        defer { stub.stop() }
        let url = "http://127.0.0.1:\(stub.port)/v1/questions/\(Self.question)/answer"
        let (status, json) = try Self.answer(Self.state(answerURL: url), #"{"choice": "allow"}"#)
        #expect(status == 200)
        #expect(json["question"] == .string(Self.question))
        #expect(json["answer_url"] == .string(url))
        #expect(json["device_token"] == .string(RecordedQuestionTests.ada))
        #expect(json["status"] == 200)
        #expect(json["body"] == ["id": "x", "state": "answered"])
        let seen = try #require(stub.log.list.withLock { $0.first })
        #expect(seen.target == "/v1/questions/\(Self.question)/answer")
        #expect(seen.contentType == "application/json")
        #expect(try JSONValue.parse(Data(seen.body)) == ["token": "device-token-A", "choice": "allow"])
    }

    @Test("a refusal by the server is reported as the server gave it")
    func refusal() throws {
        let stub = try AnswerRouteStub(status: .conflict, body: Array(#"{"error": "already answered"}"#.utf8))
        defer { stub.stop() }
        let state = Self.state(answerURL: "http://127.0.0.1:\(stub.port)/a")
        let (status, json) = try Self.answer(state, #"{"text": "no"}"#)
        #expect(status == 200)
        #expect(json["status"] == 409)
        #expect(json["body"] == ["error": "already answered"])
        #expect(
            try JSONValue.parse(Data(#require(stub.log.list.withLock { $0.first?.body }))) == [
                "token": "device-token-A", "text": "no",
            ])
    }

    @Test("an answer URL nobody listens on is 502, naming why")
    func unreachable() throws {
        // Port 1 (tcpmux): nothing listens there on a test machine, and the tests use it as the closed port.
        let (status, json) = try Self.answer(Self.state(answerURL: "http://127.0.0.1:1/a"), #"{"choice": "deny"}"#)
        #expect(status == 502)
        let message = try #require(json["error"]?.stringValue)
        #expect(message.contains("cannot connect to 127.0.0.1:1"), "\(message)")
        #expect(message.contains("refused"), "\(message)")
    }

    @Test("an answer over 64 KiB is 502, not read to its end")
    func oversized() throws {
        let stub = try AnswerRouteStub(body: Array(repeating: UInt8(ascii: "x"), count: AnswerPoster.responseLimit + 1))
        defer { stub.stop() }
        let (status, json) = try Self.answer(
            Self.state(answerURL: "http://127.0.0.1:\(stub.port)/a"), #"{"choice": "a"}"#)
        #expect(status == 502)
        #expect(json["error"]?.stringValue?.contains("larger than 64 KiB") == true, "\(json)")
    }

    @Test("a server that never answers is given up on at the total timeout")
    func silentServer() throws {
        // A listener that accepts and never reads: the timeout, not the server, ends the exchange.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let listener = try ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? listener.close().wait() }
        let poster = AnswerPoster(connectTimeout: .seconds(2), totalTimeout: .milliseconds(300))
        let state = Self.state(answerURL: "http://127.0.0.1:\(listener.localAddress?.port ?? 0)/a")
        let (status, json) = try Self.answer(state, #"{"choice": "a"}"#, poster: poster)
        #expect(status == 502)
        #expect(json["error"]?.stringValue?.contains("no answer from 127.0.0.1") == true, "\(json)")
    }

    @Test("https: the certificate must verify; --answer-ca adds a trusted CA, and the address is checked")
    func https() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("answer-tls-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let material = try EmulatorTLSMaterial.loadOrCreate(in: directory, host: "127.0.0.1").material
        let stub = try AnswerRouteStub(tls: material)
        defer { stub.stop() }
        let state = Self.state(answerURL: "https://127.0.0.1:\(stub.port)/v1/questions/\(Self.question)/answer")

        let (untrusted, untrustedJSON) = try Self.answer(state, #"{"choice": "allow"}"#)
        #expect(untrusted == 502)
        #expect(untrustedJSON["error"]?.stringValue?.contains("does not verify") == true, "\(untrustedJSON)")
        #expect(stub.log.list.withLock { $0.isEmpty }, "nothing was posted over an unverified connection")

        let ca = try NIOSSLCertificate.fromPEMFile(material.caPath)
        let (trusted, trustedJSON) = try Self.answer(
            state, #"{"choice": "allow"}"#, poster: AnswerPoster(additionalTrust: ca))
        #expect(trusted == 200, "\(trustedJSON)")
        #expect(trustedJSON["status"] == 200)
        #expect(stub.log.list.withLock { $0.count } == 1)

        // The certificate names 127.0.0.1 and localhost, not this address.
        let elsewhere = Self.state(answerURL: "https://127.0.0.2:\(stub.port)/a")
        let (wrongName, wrongNameJSON) = try Self.answer(
            elsewhere, #"{"choice": "allow"}"#, poster: AnswerPoster(additionalTrust: ca))
        #expect(wrongName == 502, "\(wrongNameJSON)")
    }

    @Test("no question push, a sealed one, and a bad body are answered without posting anything")
    func withoutPosting() throws {
        let empty = EmulatorState(devices: ScriptedDeviceStates(), seed: 1)
        let (missing, missingJSON) = try Self.answer(empty, #"{"choice": "allow", "question": "abc"}"#)
        #expect(missing == 404)
        #expect(missingJSON["error"]?.stringValue?.contains("for question abc") == true)

        let sealedState = EmulatorState(devices: ScriptedDeviceStates(), seed: 1)
        sealedState.didAnswer(
            accepted: true,
            recordLine: RecordedQuestionTests.record(
                collapseID: "pushkit-q-\(Self.question)", payload: ["aps": ["mutable-content": 1], "enc": "AAAA"]))
        let (sealed, sealedJSON) = try Self.answer(sealedState, #"{"choice": "allow"}"#)
        #expect(sealed == 422)
        #expect(sealedJSON["error"]?.stringValue?.contains("sealed") == true)

        let (bad, badJSON) = try Self.answer(empty, #"{"choise": "allow"}"#)
        #expect(bad == 400)
        #expect(badJSON["error"]?.stringValue?.contains("choise") == true)
    }
}
