import Foundation
import Testing

/// `register-apns serve` against clients that open connections and never finish a request: silent
/// ones, slowloris heads, HTTP/2 prefaces, garbage, TLS clients that never shake hands or never ask.
/// The built server on a real socket, the hostile clients plain sockets (`RawConnection`), the
/// honest one curl.
@Suite("register-apns serve under connection exhaustion")
struct ServeConnectionLimitsTests {
    let setup: ProviderSetup

    init() throws {
        setup = try ProviderSetup()
    }

    var environment: [String: String] {
        var env = setup.environment
        env["APNS_STATE_FILE"] = setup.directory.file("state/devices.json")
        return env
    }

    /// What each kind of hostile client sends, and then nothing more.
    static let hostileKinds: [(name: String, bytes: String)] = [
        ("silent", ""),
        ("partial head", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "),
        ("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        ("garbage", "\u{01}\u{02}\u{03} this is not HTTP at all\r\n\r\n"),
    ]

    /// `GET /health` by curl, allowed `seconds`; the status (0 when curl failed) and the time taken.
    func honestHealth(_ server: RunningServe, seconds: Int = 10) throws -> (status: String, seconds: Double) {
        let started = Date()
        let result = try BuiltTool.runSystem(
            "curl",
            ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "\(seconds)", server.baseURL + "/health"])
        return (result.stdout, Date().timeIntervalSince(started))
    }

    @Test("1,100 held hostile connections against a 1,024-descriptor limit: an honest GET /health is still answered")
    func honestClientGetsIn() throws {
        RawConnection.allowOpenFiles(4096)
        let server = try RunningServe(
            ["--no-auth", "--header-timeout", "600"], environment: environment, limits: "ulimit -n 1024")
        var held: [RawConnection] = []
        var refused = 0
        for index in 0..<1100 {
            let kind = Self.hostileKinds[index % Self.hostileKinds.count]
            do {
                let connection = try RawConnection(port: server.port, timeout: 2)
                try? connection.send(kind.bytes)
                held.append(connection)
            } catch {
                refused += 1
            }
        }
        print("opened \(held.count) hostile connections, \(refused) not accepted by the kernel")
        for attempt in 1...3 {
            let (status, seconds) = try honestHealth(server)
            print("honest GET /health #\(attempt): \(status) in \(String(format: "%.2f", seconds)) s")
            #expect(status == "200", "attempt \(attempt) with \(held.count) hostile connections held: \(server.stderr)")
        }
        #expect(server.process.isRunning)
        withExtendedLifetime(held) {}
    }

    @Test("each kind of connection that never sends a whole request head is closed after --header-timeout")
    func unfinishedHeadsAreClosed() throws {
        let server = try RunningServe(["--no-auth", "--header-timeout", "2"], environment: environment)
        let started = Date()
        var connections: [RawConnection] = []
        var kinds: [String] = []
        for kind in Self.hostileKinds {
            for _ in 0..<5 {
                let connection = try RawConnection(port: server.port)
                try connection.send(kind.bytes)
                connections.append(connection)
                kinds.append(kind.name)
            }
        }
        // A slowloris: a byte of its head every 200 ms, never the end of it.
        let slow = try RawConnection(port: server.port)
        try slow.send("GET /health HTTP/1.1\r\n")
        var slowClosed = false
        for _ in 0..<150 where !slowClosed {
            do { try slow.send("X") } catch { slowClosed = true }
            slowClosed = slowClosed || !RawConnection.closedByPeer([slow], timeout: 0.2).isEmpty
        }
        #expect(slowClosed, "a head sent one byte at a time was never closed")
        #expect(Date().timeIntervalSince(started) >= 2, "the slow head was closed before --header-timeout")

        let closed = RawConnection.closedByPeer(connections, timeout: 30)
        for index in connections.indices {
            #expect(closed[index] != nil, "a \(kinds[index]) connection is still open after 30 s")
        }
        for (index, when) in closed where kinds[index] == "silent" || kinds[index] == "partial head" {
            #expect(when.timeIntervalSince(started) >= 2, "a \(kinds[index]) connection was closed before the timeout")
        }
        #expect(try honestHealth(server).status == "200")
    }

    @Test("a request whose announced body never ends is closed --header-timeout after its head")
    func unfinishedBodiesAreClosed() throws {
        let server = try RunningServe(["--no-auth", "--header-timeout", "2"], environment: environment)
        let started = Date()
        var connections: [RawConnection] = []
        for _ in 0..<5 {
            let connection = try RawConnection(port: server.port)
            try connection.send(
                "POST /register-apns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{\"device_token\": ")
            connections.append(connection)
        }
        let closed = RawConnection.closedByPeer(connections, timeout: 30)
        for index in connections.indices {
            #expect(closed[index] != nil, "a connection whose body never ended is still open after 30 s")
            if let when = closed[index] {
                #expect(when.timeIntervalSince(started) >= 2, "closed before the timeout")
            }
        }
        #expect(try honestHealth(server).status == "200")
    }

    @Test(
        "1,100 connections idling after an answered request against a 1,024-descriptor limit: an honest client gets in")
    func idleAfterAnswerMakesRoom() throws {
        RawConnection.allowOpenFiles(4096)
        let server = try RunningServe(
            ["--no-auth", "--header-timeout", "600", "--idle-timeout", "600"], environment: environment,
            limits: "ulimit -n 1024")
        var held: [RawConnection] = []
        for _ in 0..<1100 {
            guard let connection = try? RawConnection(port: server.port, timeout: 2) else { continue }
            try? connection.send("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            held.append(connection)
        }
        print("opened \(held.count) connections that each sent one request and then waited")
        for attempt in 1...3 {
            let (status, seconds) = try honestHealth(server)
            print("honest GET /health #\(attempt): \(status) in \(String(format: "%.2f", seconds)) s")
            #expect(status == "200", "attempt \(attempt) with \(held.count) idle connections held: \(server.stderr)")
        }
        withExtendedLifetime(held) {}
    }

    @Test("a request that cannot be parsed is answered 400 and its connection closed")
    func malformedRequestGets400() throws {
        let server = try RunningServe(["--no-auth"], environment: environment)
        for request in [
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nthis line has no colon\r\n\r\n",
            "\u{01}\u{02}\u{03} this is not HTTP at all\r\n\r\n",
            "GET /health HTTP/1.1\r\nContent-Length: twelve\r\n\r\n",
        ] {
            let connection = try RawConnection(port: server.port)
            try connection.send(request)
            let started = Date()
            let (closed, received) = connection.readUntilClosed(timeout: 30)
            let answer = String(decoding: received, as: UTF8.self)
            print("\(request.debugDescription): closed \(closed) after \(Date().timeIntervalSince(started)) s")
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(request.debugDescription) was answered: \(answer)")
            #expect(closed, "\(request.debugDescription): the connection was left open")
        }
        #expect(try honestHealth(server).status == "200")
    }

    @Test("over TLS: a client that never starts the handshake, or never sends a request after it, is closed")
    func tlsConnectionsWithoutRequests() throws {
        let (certificate, key) = try setup.directory.selfSignedCertificate()
        let server = try RunningServe(
            ["--no-auth", "--header-timeout", "2", "--tls-cert", certificate, "--tls-key", key],
            environment: environment)
        let silent = try RawConnection(port: server.port)
        // Python's ssl module shakes hands, then waits for the server to close without asking anything.
        let script = """
            import socket, ssl, sys, time
            context = ssl.create_default_context(cafile=sys.argv[2])
            with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60) as raw:
                with context.wrap_socket(raw, server_hostname="localhost") as tls:
                    started = time.monotonic()
                    try:
                        data = tls.recv(1)
                    except (ConnectionError, ssl.SSLError) as error:
                        data = repr(error)
                    print("closed after %.1f s: %r" % (time.monotonic() - started, data))
            """
        let handshaken = try BuiltTool.runSystem("python3", ["-c", script, "\(server.port)", certificate])
        #expect(handshaken.status == 0 && handshaken.stdout.hasPrefix("closed after"), "\(handshaken.stderr)")
        print("TLS client with no request: \(handshaken.stdout)")
        #expect(RawConnection.closedByPeer([silent], timeout: 30).count == 1, "the silent TLS connection is open")
    }

    @Test("the soft open-file limit is raised to the hard one at start")
    func openFileLimitRaised() throws {
        let server = try RunningServe(
            ["--no-auth"], environment: environment, limits: "ulimit -Sn 256 && ulimit -Hn 4096")
        let limits = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers == [4096, 4096], "\(line)")
    }
}
