import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to 127.0.0.1 made with plain sockets, for the clients no HTTP library would be:
/// silent ones, slow ones, ones that speak another protocol or send garbage.
final class RawConnection {
    private(set) var descriptor: Int32

    /// Bytes read past a request head (`readHead`), not yet handed out.
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; `timeout` bounds the connect and each later send.
    /// - Parameter source: the local address to connect from (any of 127.0.0.0/8 is this machine's,
    ///   so a test can be several clients to the server's per-address rules); the kernel's choice when nil.
    init(port: Int, timeout: TimeInterval = 10, source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError("socket: errno \(errno)") }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            let bound = Self.withAddress(source, port: 0) { bind(descriptor, $0, $1) }
            guard bound == 0 else {
                let failure = errno
                Glibc.close(descriptor)
                throw RawConnectionError("bind to \(source): errno \(failure)")
            }
        }
        let connected = Self.withAddress("127.0.0.1", port: port) { connect(descriptor, $0, $1) }
        guard connected == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw RawConnectionError("connect to port \(port): errno \(failure)")
        }
    }

    deinit { close() }

    /// Calls `body` with the IPv4 socket address of `address`:`port` and its length.
    private static func withAddress(
        _ address: String, port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
        socketAddress.sin_addr.s_addr = inet_addr(address)
        return withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw RawConnectionError("send: errno \(errno)") }
            offset += sent
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads until the peer closes (or resets) the connection or `timeout` passes; whether it closed.
    func readUntilClosed(timeout: TimeInterval) -> (closed: Bool, received: [UInt8]) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(1, min(1000, deadline.timeIntervalSinceNow * 1000))))
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (true, received) }
            received += buffer[..<count]
        }
        return (false, received)
    }

    /// Reads up to the end of a response head (`\r\n\r\n`) within `timeout`; the head, or nil when
    /// the connection closed or the time passed first. Bytes after the head are kept for `readFrame`.
    func readHead(timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while Date() < deadline {
            if let range = pending.firstRange(of: end) {
                let head = String(decoding: pending[..<range.lowerBound], as: UTF8.self)
                pending.removeFirst(range.upperBound)
                return head
            }
            guard receive(until: deadline) else { return nil }
        }
        return nil
    }

    /// Reads one whole WebSocket frame the server sent (servers never mask) within `timeout`: its
    /// opcode and payload, or nil when the connection closed or the time passed first.
    func readFrame(timeout: TimeInterval) -> (opcode: UInt8, payload: [UInt8])? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if pending.count >= 2 {
                var length = Int(pending[1] & 0x7f)
                var offset = 2
                if length == 126, pending.count >= 4 {
                    length = Int(pending[2]) << 8 | Int(pending[3])
                    offset = 4
                } else if length == 127, pending.count >= 10 {
                    length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    offset = 10
                }
                if length < 126 || offset > 2, pending.count >= offset + length {
                    let frame = (pending[0] & 0x0f, Array(pending[offset..<offset + length]))
                    pending.removeFirst(offset + length)
                    return frame
                }
            }
            guard receive(until: deadline) else { return nil }
        }
        return nil
    }

    /// Sends one final WebSocket frame of `opcode` (1 text, 8 close, 9 ping, 10 pong), masked as a
    /// client must unless `masked` is false. Payloads of up to 125 bytes.
    func sendFrame(opcode: UInt8, _ payload: [UInt8], masked: Bool = true) throws {
        precondition(payload.count <= 125)
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        var frame: [UInt8] = [0x80 | opcode, (masked ? 0x80 : 0) | UInt8(payload.count)]
        if masked {
            frame += key
            frame += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        } else {
            frame += payload
        }
        try send(frame)
    }

    /// Appends what arrives before `deadline` to `pending`; false when the connection closed or nothing came.
    private func receive(until deadline: Date) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, Int32(max(1, min(1000, deadline.timeIntervalSinceNow * 1000))))
        guard ready > 0 else { return Date() < deadline }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        pending += buffer[..<count]
        return true
    }

    /// The request head of a WebSocket upgrade of `path`, with `headers` (the secret, say).
    static func upgradeRequest(_ path: String = "/gateway/ws", headers: [String: String] = [:]) -> String {
        var head =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        return head + "\r\n"
    }

    /// Closes the connection from this side (once).
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// When each of `connections` the peer closed (EOF or reset) within `timeout` was seen closed, by
    /// index, polled all at once; whatever they send before closing is read and dropped.
    static func closedByPeer(_ connections: [RawConnection], timeout: TimeInterval) -> [Int: Date] {
        var closed: [Int: Date] = [:]
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while closed.count < connections.count, Date() < deadline {
            let open = connections.indices.filter { closed[$0] == nil }
            var entries = open.map { pollfd(fd: connections[$0].descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), 200)
            guard ready > 0 else { continue }
            for (index, entry) in zip(open, entries) where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { closed[index] = Date() }
            }
        }
        return closed
    }

    /// Raises this process's soft open-file limit to at least `count` (up to the hard limit).
    static func allowOpenFiles(_ count: Int) {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(count) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
    }
}

struct RawConnectionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
