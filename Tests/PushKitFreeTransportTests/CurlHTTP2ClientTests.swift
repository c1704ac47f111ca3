import Crypto
import Foundation
import PushKitFreeCore
import PushKitFreeEmulator
import PushKitFreeTransport
import Testing

/// The libcurl HTTP/2 client against the emulator in this process (SwiftNIO's HTTP/2, TLS with a
/// CA of its own): requests multiplexed on one connection, each answer reported with its status,
/// headers and body, a new connection when asked, and failures classified the way delivery reads
/// them (connect, TLS, timeout).
@Suite("libcurl transport: multiplexing, answers, failures")
struct CurlHTTP2ClientTests {
    /// An emulator on a loopback port, its records in a file, trusting one provider key.
    final class Emulator {
        let emulator: APNsEmulator
        let port: Int
        let caPath: String
        let recordsPath: String
        let token: String
        private let directory: String
        private let thread: Thread

        init() throws {
            directory =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "transport-\(UUID().uuidString)"
                ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let key = P256.Signing.PrivateKey()
            let trust = APNsRequestValidator.Trust(
                publicKey: key.publicKey, keyID: "ABCDE12345", teamID: "TEAM123456", bundleID: nil)
            let tls = try EmulatorTLSMaterial.loadOrCreate(in: directory + "/emulator", host: "127.0.0.1").material
            var configuration = EmulatorConfiguration(trust: trust, tls: tls)
            configuration.port = 0
            configuration.threads = 1
            recordsPath = directory + "/records.jsonl"
            let records = open(recordsPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            emulator = try APNsEmulator(
                configuration: configuration, recordDescriptor: records, closesRecordDescriptor: true, quiet: true)
            port = try emulator.start()
            emulator.openOutputs()
            caPath = tls.caPath
            token = try ProviderToken.sign(
                key: ProviderKey(privateKey: key), keyID: "ABCDE12345", teamID: "TEAM123456",
                issuedAt: Int(Date().timeIntervalSince1970)
            ).compact
            let emulator = self.emulator
            thread = Thread { emulator.waitUntilStopped() }
            thread.start()
        }

        /// A push to device `index` (a token of its own).
        func push(_ index: Int, topic: String = "com.example.app") -> HTTP2Request {
            let device = String(format: "%064x", index + 1)
            return HTTP2Request(
                url: "https://127.0.0.1:\(port)/3/device/\(device)",
                headers: [
                    ("authorization", "bearer \(token)"), ("apns-topic", topic), ("apns-push-type", "alert"),
                ],
                body: Data(#"{"aps":{"alert":"hello \#(index)"}}"#.utf8), tag: index)
        }

        /// Stops the emulator and waits until it has written out its records, then returns them:
        /// one JSON object per request it answered.
        func stopAndReadRecords() throws -> [[String: Any]] {
            emulator.stop()
            while !thread.isFinished { usleep(1_000) }
            let text = try String(contentsOfFile: recordsPath, encoding: .utf8)
            return try text.split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }

        /// Stops the emulator (its records written out) and removes its directory.
        func stop() {
            emulator.stop()
            while !thread.isFinished { usleep(1_000) }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Sends `requests` through `client` and returns the answers by tag.
    static func send(
        _ requests: [HTTP2Request], through client: CurlHTTP2Client, within seconds: Int = 30
    ) -> [Int: Result<HTTP2Answer, TransportFailure>] {
        var answers: [Int: Result<HTTP2Answer, TransportFailure>] = [:]
        client.perform(requests, deadline: .now + .seconds(seconds)) { answers[$0.tag] = $0.result }
        return answers
    }

    @Test("200 requests share one connection, each answered 200 with its own apns-id")
    func multiplexed() throws {
        let emulator = try Emulator()
        defer { emulator.stop() }
        let client = CurlHTTP2Client(caFile: emulator.caPath)
        let answers = Self.send((0..<200).map { emulator.push($0) }, through: client)
        #expect(answers.count == 200)
        let statuses = answers.values.compactMap { try? $0.get().status }
        #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 }, "\(answers.values.first!)")
        let ids = Set(answers.values.compactMap { try? $0.get().headers["apns-id"] })
        #expect(ids.count == 200, "every answer has an apns-id of its own")
        let records = try emulator.stopAndReadRecords()
        #expect(records.count == 200)
        let connections = Set(records.compactMap { $0["connection"] as? Int })
        #expect(connections.count == 1, "connections used: \(connections)")
    }

    @Test("a refused request's status and JSON reason come back as the answer, not a failure")
    func refusalIsAnAnswer() throws {
        let emulator = try Emulator()
        defer { emulator.stop() }
        var request = emulator.push(0)
        request.headers[0] = ("authorization", "bearer not-a-token")
        let answer = try #require(Self.send([request], through: CurlHTTP2Client(caFile: emulator.caPath))[0])
        let refused = try answer.get()
        #expect(refused.status == 403)
        let reason = try JSONSerialization.jsonObject(with: refused.body) as? [String: Any]
        #expect(reason?["reason"] as? String == "InvalidProviderToken")
    }

    @Test("openNewConnection: the next requests go over a connection of their own")
    func newConnection() throws {
        let emulator = try Emulator()
        defer { emulator.stop() }
        let client = CurlHTTP2Client(caFile: emulator.caPath)
        _ = Self.send((0..<5).map { emulator.push($0) }, through: client)
        client.openNewConnection()
        _ = Self.send((5..<10).map { emulator.push($0) }, through: client)
        let records = try emulator.stopAndReadRecords()
        let first = Set(
            records.filter { ($0["device_token"] as? String).map { $0 < String(format: "%064x", 6) } ?? false }
                .compactMap { $0["connection"] as? Int })
        let all = Set(records.compactMap { $0["connection"] as? Int })
        #expect(records.count == 10 && first.count == 1 && all.count == 2, "connections: \(all)")
    }

    @Test("failures are classified: nothing listening is connect, an untrusted certificate is tls")
    func failureKinds() throws {
        let emulator = try Emulator()
        defer { emulator.stop() }
        // Not the emulator's CA: the system's, which never signed the emulator's certificate.
        let untrusted = Self.send([emulator.push(0)], through: CurlHTTP2Client(caFile: nil))[0]
        guard case .failure(let tls) = untrusted else {
            Issue.record("an untrusted certificate was accepted: \(String(describing: untrusted))")
            return
        }
        #expect(tls.kind == .tls, "\(tls)")

        // A port nobody listens on: bound, then closed, so nothing else takes it meanwhile.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length)
                return getsockname(socket, $0, &length)
            }
        }
        let closedPort = Int(UInt16(bigEndian: address.sin_port))
        close(socket)
        var request = emulator.push(0)
        request.url = "https://127.0.0.1:\(closedPort)/3/device/\(String(repeating: "ab", count: 32))"
        let refused = Self.send([request], through: CurlHTTP2Client(caFile: emulator.caPath))[0]
        guard case .failure(let connect) = refused else {
            Issue.record("a closed port answered: \(String(describing: refused))")
            return
        }
        #expect(connect.kind == .connect, "\(connect)")
    }

    @Test("at the deadline, requests in flight fail as timeouts and the rest are reported not sent")
    func deadline() throws {
        let emulator = try Emulator()
        defer { emulator.stop() }
        let client = CurlHTTP2Client(caFile: emulator.caPath)
        // A deadline already past: nothing can be answered.
        var answers: [Int: Result<HTTP2Answer, TransportFailure>] = [:]
        client.perform((0..<3).map { emulator.push($0) }, deadline: .now) { answers[$0.tag] = $0.result }
        #expect(answers.count == 3)
        for answer in answers.values {
            guard case .failure(let failure) = answer else {
                Issue.record("answered after the deadline: \(answer)")
                continue
            }
            #expect(failure.kind == .timeout)
        }
    }
}
