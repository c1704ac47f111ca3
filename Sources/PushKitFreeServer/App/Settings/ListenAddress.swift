#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// Where `register-apns serve` listens: `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` (loopback).
package struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// A host name or an IP address, IPv6 without brackets; `127.0.0.1` when `--listen` gave none.
    package let host: String
    /// 0 to 65535; 0 lets the system pick a free port.
    package let port: Int

    /// The default: loopback, port 8100.
    package static let `default` = ListenAddress(host: "127.0.0.1", port: 8100)

    /// `host` and `port` as given, unchecked.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `--listen`.
    /// - Throws: `ConfigurationError` (64) naming what is wrong.
    package init(parsing text: String) throws(ConfigurationError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ConfigurationError("--listen \(text): expected [IPv6]:PORT, e.g. [::1]:8100", exitStatus: .usage)
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw ConfigurationError(
                    "--listen \(text): expected HOST:PORT, e.g. 127.0.0.1:8100 or 0.0.0.0:8100", exitStatus: .usage)
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw ConfigurationError("--listen \(text): the port must be a number from 0 to 65535", exitStatus: .usage)
        }
        self.host = host.isEmpty ? "127.0.0.1" : String(host)
        self.port = port
    }

    /// Whether only this machine can connect: every address the host resolves to is a loopback
    /// address (127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104), and there is at least one. The addresses
    /// are checked, not the name: `127.example.com` or `localhost.example.com` may resolve anywhere.
    package var isLoopback: Bool {
        let addresses = Self.resolve(host)
        return !addresses.isEmpty && addresses.allSatisfy(Self.isLoopbackAddress)
    }

    /// Whether `bytes` (4 or 16) is a loopback address.
    static func isLoopbackAddress(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: bytes[0] == 127
        case 16:
            bytes == Array(repeating: 0, count: 15) + [1]
                || (bytes.prefix(12) == (Array(repeating: 0, count: 10) + [0xff, 0xff])[...] && bytes[12] == 127)
        default: false
        }
    }

    /// The addresses `host` resolves to (an address is itself), as 4 or 16 bytes each; none when it
    /// does not resolve.
    static func resolve(_ host: String) -> [[UInt8]] {
        if let bytes = IPNetwork.addressBytes(host) { return [bytes] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let info = entry?.pointee {
            if info.ai_family == AF_INET, let address = info.ai_addr {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var inet = pointer.pointee.sin_addr
                    addresses.append(withUnsafeBytes(of: &inet) { Array($0) })
                }
            } else if info.ai_family == AF_INET6, let address = info.ai_addr {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var inet6 = pointer.pointee.sin6_addr
                    addresses.append(withUnsafeBytes(of: &inet6) { Array($0) })
                }
            }
            entry = info.ai_next
        }
        return addresses
    }

    /// `HOST:PORT`, or `[IPv6]:PORT`.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
