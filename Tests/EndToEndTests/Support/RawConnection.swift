import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to 127.0.0.1 made with plain sockets, for the clients no HTTP library would be:
/// silent ones, slow ones, ones that speak another protocol or send garbage.
final class RawConnection {
    private(set) var descriptor: Int32

    /// Connects to 127.0.0.1:`port`; `timeout` bounds the connect and each later send.
    init(port: Int, timeout: TimeInterval = 10) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError("socket: errno \(errno)") }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw RawConnectionError("connect to port \(port): errno \(failure)")
        }
    }

    deinit { close() }

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
