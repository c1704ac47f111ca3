import Foundation
import Testing

/// `register-apns serve` against one address that floods it: WebSocket upgrades without the secret,
/// upgraded sockets held idle with it, requests whose bodies trickle in; and against clients that
/// break the protocols (unmasked frames, pings never answered, a missing or doubled `Host`). The
/// attackers connect from 127.0.0.2, the honest probes from 127.0.0.3 (curl `--interface`): every
/// address of 127.0.0.0/8 is this machine's, and the server's per-address rules see three clients.
///
/// Serialized: each flood holds hundreds of sockets in this test process, and run side by side
/// they held over 1,300 descriptors while another test started curl, and Foundation's
/// `Process.run` crashed the runner (SIGSEGV in its memcpy, 2026-11-29).
@Suite("register-apns serve: floods from one address, protocol breakers", .serialized)
struct ServeConnectionHardeningTests {
    static let secret = "hardening-secret-for-tests-0123456789"
    static let auth = ["Authorization": "Bearer \(secret)"]
    static let attacker = "127.0.0.2"
    static let honest = "127.0.0.3"

    let setup: ProviderSetup
    let secretFile: String

    init() throws {
        setup = try ProviderSetup()
        secretFile = try setup.directory.write("serve.secret", Self.secret + "\n")
        RawConnection.allowOpenFiles(4096)
    }

    var environment: [String: String] {
        var env = setup.environment
        env["APNS_STATE_FILE"] = setup.directory.file("state/devices.json")
        return env
    }

    func serve(_ arguments: [String], limits: String? = nil) throws -> RunningServe {
        try RunningServe(["--secret-file", secretFile] + arguments, environment: environment, limits: limits)
    }

    /// `count` honest requests from `Self.honest`, each allowed 10 s: `GET /api/v1/devices` with the
    /// secret. Prints how many succeeded and their median time.
    func probes(_ server: RunningServe, count: Int, label: String) throws -> [String] {
        var statuses: [String] = []
        var seconds: [Double] = []
        for _ in 0..<count {
            let started = Date()
            let result = try BuiltTool.runSystem(
                "curl",
                [
                    "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--interface", Self.honest,
                    "-H", "Authorization: Bearer \(Self.secret)", server.baseURL + "/api/v1/devices",
                ])
            statuses.append(result.stdout)
            seconds.append(Date().timeIntervalSince(started))
        }
        let median = seconds.sorted()[seconds.count / 2]
        print(
            "\(label): \(statuses.filter { $0 == "200" }.count) of \(count) honest probes answered 200, "
                + "median \(String(format: "%.1f", median * 1000)) ms")
        return statuses
    }

    /// `/metrics`, read with the secret.
    func metrics(_ server: RunningServe) throws -> String {
        try server.request("GET", "/metrics", headers: Self.auth).body
    }

    /// The value of the metric line that starts with `series` (`name{labels}`), nil when absent.
    static func value(_ series: String, in metrics: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap {
            Double($0.split(separator: " ").last ?? "")
        }
    }

    /// The status code of a response head.
    static func status(_ head: String?) -> Int? {
        head.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }

    @Test("an upgrade without the secret is answered 401, past the allowance of failures 429, never 101, and closed")
    func upgradeIsAuthenticatedFirst() throws {
        // One failure a minute: the allowance cannot refill while the test runs.
        let server = try serve(["--rate-limit", "1"])
        var statuses: [Int?] = []
        for index in 0..<4 {
            let connection = try RawConnection(port: server.port, source: Self.attacker)
            let headers = index % 2 == 0 ? [:] : ["Authorization": "Bearer wrong"]
            try connection.send(RawConnection.upgradeRequest(headers: headers))
            statuses.append(Self.status(connection.readHead(timeout: 10)))
            #expect(connection.readUntilClosed(timeout: 10).closed, "connection \(index) closed after its answer")
        }
        #expect(statuses == [401, 429, 429, 429], "\(statuses)")
        // The same allowance as every other route's, and another address's is untouched.
        let plain = try RawConnection(port: server.port, source: Self.attacker)
        try plain.send("GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong\r\n\r\n")
        #expect(Self.status(plain.readHead(timeout: 10)) == 429)
        let upgraded = try RawConnection(port: server.port, source: Self.honest)
        try upgraded.send(RawConnection.upgradeRequest(headers: Self.auth))
        #expect(Self.status(upgraded.readHead(timeout: 10)) == 101)
        // The upgrade's line is written once the socket is open, after the 101 has gone out.
        _ = try server.process.waitForLine("GET /gateway/ws 101", in: server.stderrPath, timeout: 30)
        let upgrades = server.stderr.components(separatedBy: "GET /gateway/ws 101").count - 1
        #expect(upgrades == 1, "only the authenticated upgrade was one: \(server.stderr)")
    }

    @Test("400 upgrades without the secret from one address: every honest probe from another is answered")
    func unauthenticatedUpgradeFlood() throws {
        let server = try serve(["--max-connections", "300", "--rate-limit", "0"])
        var held: [RawConnection] = []
        for _ in 0..<400 {
            guard let connection = try? RawConnection(port: server.port, timeout: 2, source: Self.attacker) else {
                continue
            }
            try? connection.send(RawConnection.upgradeRequest())
            held.append(connection)
        }
        let statuses = try probes(server, count: 24, label: "400 unauthenticated upgrades held")
        #expect(statuses.allSatisfy { $0 == "200" }, "\(statuses)")
        let refusedUpgrades = held.prefix(20).map { Self.status($0.readHead(timeout: 10)) }
        #expect(refusedUpgrades.allSatisfy { $0 == 401 || $0 == nil }, "never 101: \(refusedUpgrades)")
        #expect(!server.stderr.contains(" 101 "), "nothing was upgraded")
        withExtendedLifetime(held) {}
    }

    @Test("400 idle sockets with the secret from one address: it keeps its share, honest probes from another get in")
    func idleSocketFlood() throws {
        let server = try serve(["--max-connections", "300"])
        var held: [RawConnection] = []
        var upgraded = 0
        for _ in 0..<400 {
            let connection = try RawConnection(port: server.port, timeout: 2, source: Self.attacker)
            try connection.send(RawConnection.upgradeRequest(headers: Self.auth))
            if Self.status(connection.readHead(timeout: 10)) == 101 { upgraded += 1 }
            held.append(connection)
        }
        #expect(upgraded == 400, "each was upgraded, the address's oldest closed to make room")
        let closed = RawConnection.closedByPeer(held, timeout: 5)
        print("400 sockets upgraded from one address: \(closed.count) closed to keep its share of 75")
        #expect(closed.count == 325, "a quarter of --max-connections 300 is kept")
        #expect(closed.keys.allSatisfy { $0 < 325 }, "the oldest gave way")
        let statuses = try probes(server, count: 24, label: "75 idle sockets held, 325 closed")
        #expect(statuses.allSatisfy { $0 == "200" }, "\(statuses)")
        let text = try metrics(server)
        #expect(Self.value(#"pushkit_connections_dropped_total{limit="client"}"#, in: text) == 325, "\(text)")
    }

    @Test(
        "trickled request bodies from one address, without the secret on an open network and with it under a 1,024 limit: honest probes get in",
        arguments: [false, true])
    func trickledBodies(withSecret: Bool) throws {
        let count = withSecret ? 1_100 : 400
        // No rate limit: past it a request is answered 429 at once, and its connection is idle again.
        let server =
            withSecret
            ? try serve(["--header-timeout", "120", "--rate-limit", "0"], limits: "ulimit -n 1024")
            : try serve([
                "--max-connections", "300", "--header-timeout", "120", "--rate-limit", "0", "--open-registration",
                "\(Self.attacker)/32",
            ])
        var held: [RawConnection] = []
        let authorization = withSecret ? "Authorization: Bearer \(Self.secret)\r\n" : ""
        for _ in 0..<count {
            guard let connection = try? RawConnection(port: server.port, timeout: 2, source: Self.attacker) else {
                continue
            }
            try? connection.send(
                "POST /register-apns HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)Content-Type: application/json\r\n"
                    + "Content-Length: 2000\r\n\r\n{\"device_token\": \"")
            held.append(connection)
        }
        let label = "\(count) trickled bodies \(withSecret ? "with the secret" : "from an open network")"
        let statuses = try probes(server, count: 24, label: label)
        #expect(statuses.allSatisfy { $0 == "200" }, "\(statuses)")
        let text = try metrics(server)
        let refused = Self.value(#"pushkit_connections_refused_total{limit="client"}"#, in: text) ?? 0
        let dropped = Self.value(#"pushkit_connections_dropped_total{limit="client"}"#, in: text) ?? 0
        print("\(label): \(Int(refused)) refused and \(Int(dropped)) closed at the address's share")
        #expect(refused + dropped > 0, "\(text)")
        withExtendedLifetime(held) {}
    }

    @Test("a client's unmasked frame is answered with close 1002 and the connection closed")
    func unmaskedFrame() throws {
        let server = try serve([])
        let connection = try RawConnection(port: server.port)
        try connection.send(RawConnection.upgradeRequest(headers: Self.auth))
        #expect(Self.status(connection.readHead(timeout: 10)) == 101)
        try connection.sendFrame(opcode: 1, Array(#"{"type": "ping"}"#.utf8), masked: false)
        let close = try #require(connection.readFrame(timeout: 10), "a close frame")
        #expect(close.opcode == 8)
        #expect(close.payload.count >= 2 && Int(close.payload[0]) << 8 | Int(close.payload[1]) == 1002, "\(close)")
        #expect(connection.readUntilClosed(timeout: 10).closed)
        #expect(!server.stderr.contains("WS /gateway/ws 200"), "the frame was not answered: \(server.stderr)")

        // A masked one is answered as ever.
        let honest = try RawConnection(port: server.port)
        try honest.send(RawConnection.upgradeRequest(headers: Self.auth))
        #expect(Self.status(honest.readHead(timeout: 10)) == 101)
        try honest.sendFrame(opcode: 1, Array(#"{"type": "ping"}"#.utf8))
        let reply = try #require(honest.readFrame(timeout: 10))
        #expect(reply.opcode == 1 && String(decoding: reply.payload, as: UTF8.self).contains("pong"))
    }

    @Test("an upgraded socket is pinged every --idle-timeout; one that never answers is closed, one that does stays")
    func unansweredPing() throws {
        let server = try serve(["--idle-timeout", "2"])
        // One at a time, so that waiting on one never leaves the other's pings unanswered.
        let silent = try RawConnection(port: server.port)
        try silent.send(RawConnection.upgradeRequest(headers: Self.auth))
        #expect(Self.status(silent.readHead(timeout: 10)) == 101)
        let ping = try #require(silent.readFrame(timeout: 10), "a ping")
        #expect(ping.opcode == 9)
        #expect(silent.readUntilClosed(timeout: 20).closed, "closed for the unanswered ping")

        let answering = try RawConnection(port: server.port)
        try answering.send(RawConnection.upgradeRequest(headers: Self.auth))
        #expect(Self.status(answering.readHead(timeout: 10)) == 101)
        for _ in 0..<3 {
            let ping = try #require(answering.readFrame(timeout: 10), "a ping")
            #expect(ping.opcode == 9)
            try answering.sendFrame(opcode: 10, ping.payload)
        }
        try answering.sendFrame(opcode: 1, Array(#"{"type": "ping"}"#.utf8))
        var reply = try #require(answering.readFrame(timeout: 10))
        while reply.opcode == 9 {
            try answering.sendFrame(opcode: 10, reply.payload)
            reply = try #require(answering.readFrame(timeout: 10))
        }
        #expect(reply.opcode == 1, "the answering socket is still served after three pings")
    }

    @Test("a request without Host, or with two, is answered 400; one Host is served")
    func hostHeader() throws {
        let server = try serve(["--rate-limit", "0"])
        for (name, head, expected) in [
            ("no Host", "GET /health HTTP/1.1\r\n\r\n", 400),
            ("two Hosts", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n", 400),
            ("one Host", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 200),
            (
                "an upgrade with two Hosts",
                RawConnection.upgradeRequest(headers: Self.auth.merging(["Host": "evil.example"]) { $1 }), 400
            ),
        ] {
            let connection = try RawConnection(port: server.port)
            try connection.send(head)
            let answer = connection.readHead(timeout: 10)
            #expect(Self.status(answer) == expected, "\(name): \(answer ?? "no answer")")
        }
    }

    @Test("/metrics counts connections closed by the head's deadline")
    func deadlineMetrics() throws {
        let server = try serve(["--header-timeout", "1"])
        let silent = try RawConnection(port: server.port)
        #expect(silent.readUntilClosed(timeout: 20).closed)
        let text = try metrics(server)
        #expect(Self.value(#"pushkit_connections_timed_out_total{deadline="head"}"#, in: text) == 1, "\(text)")
        #expect(Self.value("pushkit_connections_open", in: text) != nil, "\(text)")
    }
}
