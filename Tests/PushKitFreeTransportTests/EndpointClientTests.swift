import Foundation
import PushKitFreeCore
import PushKitFreeTransport
import Testing

/// `EndpointClient` against a one-connection HTTP/1.1 server on a loopback socket, written here so
/// each test decides exactly what comes back (or that nothing does).
@Suite("EndpointClient: HTTP/1.1 with the secret, bounded answers, failures classified")
struct EndpointClientTests {
    /// Accepts one connection on a free loopback port, reads one request (headers and a body of
    /// `Content-Length`), then writes `answer` (or nothing, holding the connection, when `nil`).
    final class OneShotServer: @unchecked Sendable {
        let port: Int
        private let listener: Int32
        private let lock = NSLock()
        private var received = Data()
        private let done = DispatchSemaphore(value: 0)

        init(answer: Data?) throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            try #require(bound == 0 && listen(listener, 1) == 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
            self.listener = listener
            Thread.detachNewThread { [self] in
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var request = Data()
                while !Self.isComplete(request) {
                    let count = read(connection, &buffer, buffer.count)
                    if count <= 0 { break }
                    request.append(contentsOf: buffer[..<count])
                }
                lock.withLock { received = request }
                done.signal()
                if let answer {
                    answer.withUnsafeBytes { _ = write(connection, $0.baseAddress, $0.count) }
                    close(connection)
                } else {
                    // Held open and silent until the client gives up.
                    while read(connection, &buffer, buffer.count) > 0 {}
                    close(connection)
                }
            }
        }

        deinit { close(listener) }

        /// The request as received, once it is complete (waits up to 10 seconds).
        func request() -> String {
            _ = done.wait(timeout: .now() + 10)
            return lock.withLock { String(decoding: received, as: UTF8.self) }
        }

        static func isComplete(_ request: Data) -> Bool {
            guard let end = request.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: request[..<end.lowerBound], as: UTF8.self).lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return request.count - end.upperBound >= length
        }

        static func answer(status: Int, body: String) -> Data {
            Data(
                "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                    .utf8)
        }
    }

    func client(_ port: Int, bodyLimit: Int = 1 << 20) throws -> EndpointClient {
        try EndpointClient(
            baseURL: "http://127.0.0.1:\(port)/", secret: "s3cret", caFile: nil, proxy: nil,
            connectTimeout: .seconds(5), bodyLimit: bodyLimit)
    }

    @Test("HTTP/1.1 with the secret as a bearer token and the JSON body; the answer's status and body")
    func request() throws {
        let server = try OneShotServer(answer: OneShotServer.answer(status: 201, body: #"{"id": "x"}"#))
        let response = try client(server.port).send(
            .post, "/v1/questions", body: Data(#"{"title": "Q"}"#.utf8), timeout: .seconds(10))
        #expect(response.status == 201 && response.body == Data(#"{"id": "x"}"#.utf8))
        let request = server.request()
        #expect(request.hasPrefix("POST /v1/questions HTTP/1.1\r\n"), "\(request)")
        #expect(request.contains("\r\nAuthorization: Bearer s3cret\r\n"))
        #expect(request.contains("\r\nContent-Type: application/json\r\n"))
        #expect(request.hasSuffix("\r\n\r\n{\"title\": \"Q\"}"))
    }

    @Test("DELETE and GET carry no body")
    func methods() throws {
        for method in [EndpointClient.Method.delete, .get] {
            let server = try OneShotServer(answer: OneShotServer.answer(status: 200, body: "{}"))
            _ = try client(server.port).send(method, "/v1/questions/abc?wait=1", timeout: .seconds(10))
            let request = server.request()
            #expect(request.hasPrefix("\(method.rawValue) /v1/questions/abc?wait=1 HTTP/1.1\r\n"), "\(request)")
            #expect(request.hasSuffix("\r\n\r\n"))
        }
    }

    @Test("an answer over the bound fails as too large (exit 65)")
    func tooLarge() throws {
        let server = try OneShotServer(
            answer: OneShotServer.answer(status: 200, body: String(repeating: "x", count: 5000)))
        #expect {
            try client(server.port, bodyLimit: 4096).send(.get, "/", timeout: .seconds(10))
        } throws: {
            ($0 as? EndpointClientError)?.kind == .tooLarge && ($0 as? EndpointClientError)?.exitStatus == .dataError
        }
    }

    @Test("nobody listening: unreachable (69); silence past the timeout: timeout (75)")
    func failures() throws {
        #expect {
            try client(1).send(.get, "/", timeout: .seconds(5))
        } throws: {
            ($0 as? EndpointClientError)?.kind == .unreachable
                && ($0 as? EndpointClientError)?.exitStatus == .unavailable
        }
        let silent = try OneShotServer(answer: nil)
        let started = ContinuousClock.now
        #expect {
            try client(silent.port).send(.get, "/", timeout: .milliseconds(800))
        } throws: {
            ($0 as? EndpointClientError)?.kind == .timeout
                && ($0 as? EndpointClientError)?.exitStatus == .temporaryFailure
        }
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test("shouldStop ends a request held by the server, as interrupted")
    func stopped() throws {
        let silent = try OneShotServer(answer: nil)
        let flag = StopFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { flag.set() }
        let started = ContinuousClock.now
        #expect {
            try client(silent.port).send(.get, "/", timeout: .seconds(60), shouldStop: { flag.isSet })
        } throws: {
            ($0 as? EndpointClientError)?.kind == .interrupted
        }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    final class StopFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}
