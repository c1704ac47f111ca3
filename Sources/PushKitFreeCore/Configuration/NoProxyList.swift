/// A `no_proxy`/`NO_PROXY` list, matched against a host exactly as libcurl 7.88 matches it
/// (`Curl_check_noproxy`), so `apns-jwt check` says what `send-push` will do.
///
/// libcurl's rules, checked against the installed 7.88.1:
/// - the whole value `*` exempts every host (`*` inside a list matches nothing, nor does `*.a.com`);
/// - entries are separated by commas and/or blanks (spaces, tabs);
/// - a name matches the host itself or any host under it: `apple.com` and `.apple.com` both match
///   `apple.com` and `api.push.apple.com`, not `pple.com`; case is ignored, as is one trailing dot
///   on either side and one leading dot on the entry;
/// - the URL's port is ignored, and an entry with a port (`host:443`) never matches;
/// - an IPv4 host matches an entry with the same address or a CIDR range holding it
///   (`127.0.0.0/8`); a CIDR of /0 or /32 means the address alone, more than /32 matches nothing;
/// - an IPv6 host (brackets removed) is compared as text, like a name: 7.88 has no IPv6 ranges.
package struct NoProxyList: Sendable, Equatable {
    /// The list as written.
    package let text: String

    /// The list `text`, as the variable holds it.
    package init(_ text: String) {
        self.text = text
    }

    /// The entries, as libcurl splits them.
    package var entries: [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// The entry that exempts `host` (`*` for the whole-list wildcard), or `nil`.
    /// - Parameter host: a URL's host without port; IPv6 literals with or without brackets.
    package func entry(exempting host: String) -> String? {
        guard !host.isEmpty, !text.isEmpty else { return nil }
        if text == "*" { return "*" }
        var name = Substring(host)
        let kind: HostKind
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return nil }
            name = name[name.index(after: name.startIndex)..<close]
            kind = .name
        } else if let address = Self.ipv4(name) {
            kind = .ipv4(address)
        } else {
            if name.hasSuffix(".") { name = name.dropLast() }
            kind = .name
        }
        return entries.first { Self.matches(entry: $0, host: name, kind: kind) }
    }

    private enum HostKind {
        case name
        case ipv4(UInt32)
    }

    private static func matches(entry: String, host: Substring, kind: HostKind) -> Bool {
        switch kind {
        case .name:
            var token = Substring(entry)
            if token.hasSuffix(".") { token = token.dropLast() }
            if token.hasPrefix(".") { token = token.dropFirst() }
            let name = Array(host.utf8), pattern = Array(token.utf8)
            if pattern.count == name.count { return equalIgnoringCase(pattern[...], name[...]) }
            guard pattern.count < name.count else { return false }
            let tail = name.count - pattern.count
            return name[tail - 1] == UInt8(ascii: ".") && equalIgnoringCase(pattern[...], name[tail...])
        case .ipv4(let address):
            var network = Substring(entry)
            var bits = 0
            if let slash = network.firstIndex(of: "/") {
                guard let parsed = leadingInteger(network[network.index(after: slash)...]) else { return false }
                bits = parsed
                network = network[..<slash]
            }
            guard bits <= 32, let check = ipv4(network) else { return false }
            if bits == 0 || bits == 32 { return address == check }
            let mask = UInt32.max << UInt32(32 - bits)
            return address & mask == check & mask
        }
    }

    /// A dotted-quad IPv4 address as `inet_pton(AF_INET)` reads it: four decimal parts of 0-255,
    /// no leading zeros.
    static func ipv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part == "0" || !part.hasPrefix("0"), let value = UInt32(part), value <= 255
            else { return nil }
            address = address << 8 | value
        }
        return address
    }

    /// The number at the start of `text` the way C's `atoi` reads it (0 when there is none);
    /// `nil` for a negative number, which libcurl turns into a huge unsigned count that matches nothing.
    private static func leadingInteger(_ text: Substring) -> Int? {
        var rest = text.drop(while: { $0 == " " || $0 == "\t" })
        var negative = false
        if let sign = rest.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber }).prefix(9)
        let value = Int(digits) ?? 0
        return negative && value != 0 ? nil : value
    }

    private static func equalIgnoringCase(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
