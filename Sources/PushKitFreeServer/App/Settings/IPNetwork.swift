#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// An IPv4 or IPv6 network in CIDR notation (`10.10.10.0/24`, `fd7a:115c:a1e0::/48`), as
/// `register-apns serve --open-registration` names the networks whose devices may register without
/// the secret.
///
/// A bare address is a network of that one host (`/32`, `/128`). Bits set past the prefix are
/// refused rather than guessed at (`10.10.10.5/24` may mean the network or the host). An IPv4 peer
/// seen through an IPv6 socket (`::ffff:10.10.10.5`) is matched against IPv4 networks.
package struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// The network address: 4 bytes (IPv4) or 16 (IPv6).
    package let bytes: [UInt8]
    /// The number of leading bits that name the network.
    package let prefixLength: Int

    /// Parses one network.
    /// - Parameter option: how messages name the setting, e.g. `--open-registration`.
    /// - Throws: `ConfigurationError` (64) naming the value and what is wrong with it.
    package init(parsing text: String, option: String = "--open-registration") throws(ConfigurationError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let addressText = String(parts[0])
        guard let bytes = Self.addressBytes(addressText) else {
            throw ConfigurationError(
                "\(option) \(text): not an IPv4 or IPv6 network; expected e.g. 10.10.10.0/24 or "
                    + "fd7a:115c:a1e0::/48", exitStatus: .usage)
        }
        let maximum = bytes.count * 8
        var prefixLength = maximum
        if parts.count == 2 {
            guard let length = Int(parts[1]), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                (0...maximum).contains(length)
            else {
                throw ConfigurationError(
                    "\(option) \(text): the prefix length must be a number from 0 to \(maximum) "
                        + "for an \(bytes.count == 4 ? "IPv4" : "IPv6") network", exitStatus: .usage)
            }
            prefixLength = length
        }
        let network = Self.masked(bytes, prefixLength: prefixLength)
        guard network == bytes else {
            let suggestion = IPNetwork(bytes: network, prefixLength: prefixLength)
            throw ConfigurationError(
                "\(option) \(text): the address has bits set past the /\(prefixLength) prefix; "
                    + "write \(suggestion) for the network", exitStatus: .usage)
        }
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    private init(bytes: [UInt8], prefixLength: Int) {
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    /// Parses a comma-separated list (spaces around the commas are allowed).
    /// - Throws: `ConfigurationError` (64) for an empty list or element, or the first bad network.
    package static func list(
        parsing text: String,
        option: String = "--open-registration"
    ) throws(ConfigurationError) -> [IPNetwork] {
        var networks: [IPNetwork] = []
        for element in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = String(element).trimmingWhitespace
            guard !trimmed.isEmpty else {
                throw ConfigurationError(
                    "\(option) \"\(text)\": an empty network in the list; expected CIDR[,CIDR...]",
                    exitStatus: .usage)
            }
            networks.append(try IPNetwork(parsing: trimmed, option: option))
        }
        return networks
    }

    /// Whether `address` (a peer's IP address as text) lies in this network; `false` for text that
    /// is not an address.
    package func contains(_ address: String) -> Bool {
        var host = Substring(address)
        if let zone = host.firstIndex(of: "%") { host = host[..<zone] }
        guard var peer = Self.addressBytes(String(host)) else { return false }
        if peer.count == 16, bytes.count == 4, peer.prefix(12) == Self.mappedIPv4Prefix[...] {
            peer = Array(peer.suffix(4))
        }
        guard peer.count == bytes.count else { return false }
        return Self.masked(peer, prefixLength: prefixLength) == bytes
    }

    /// `10.10.10.0/24`, `fd7a:115c:a1e0::/48` (the address in its shortest form).
    package var description: String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count))
        }
        let address =
            written == nil
            ? bytes.map(String.init).joined(separator: ".")
            : String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(address)/\(prefixLength)"
    }

    /// `::ffff:0:0/96`, the IPv6 form of IPv4 addresses on dual-stack sockets.
    private static let mappedIPv4Prefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]

    /// The 4 or 16 bytes of an IPv4 (dotted quad) or IPv6 address, or `nil`.
    static func addressBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16)
        if text.contains(":") {
            guard buffer.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 else { return nil }
            return buffer
        }
        guard buffer.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 else { return nil }
        return Array(buffer.prefix(4))
    }

    /// `bytes` with every bit past the first `prefixLength` cleared.
    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bitsKept = min(8, max(0, prefixLength - index * 8))
            return bitsKept == 8 ? byte : byte & ~(UInt8(0xff) >> bitsKept)
        }
    }
}
