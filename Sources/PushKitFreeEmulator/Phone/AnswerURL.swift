/// An absolute `http` or `https` URL as the answer route needs it: the host to connect to, the
/// port, and the request target. No user information, no fragment.
struct AnswerURL: Sendable, Equatable {
    /// `https` (TLS) or plain `http`.
    var isSecure: Bool
    /// The host name or IP address, an IPv6 address without its brackets.
    var host: String
    var port: Int
    /// The path and query, `/` when the URL has no path.
    var target: String

    /// Whether `host` is an IP address (no SNI is sent; the certificate must name the address).
    var isIPAddress: Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// `host:port` for messages, brackets around an IPv6 address.
    var authority: String { "\(bracketedHost):\(port)" }

    /// The `Host` header: the port only when it is not the scheme's default.
    var hostHeader: String { port == (isSecure ? 443 : 80) ? bracketedHost : authority }

    private var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }

    /// Why a URL cannot be used, in words.
    struct Problem: Error, Equatable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Reads `text`, e.g. `https://push.example.net/v1/questions/ab12/answer`.
    init(_ text: String) throws(Problem) {
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            isSecure = true
            rest = text.dropFirst("https://".count)
        } else if lowered.hasPrefix("http://") {
            isSecure = false
            rest = text.dropFirst("http://".count)
        } else {
            throw Problem(message: "the answer URL \(text) is not an http or https URL")
        }
        guard !text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
        else {
            throw Problem(message: "the answer URL contains white space or control characters")
        }
        let withoutFragment = rest.prefix { $0 != "#" }
        let authorityEnd = withoutFragment.firstIndex { $0 == "/" || $0 == "?" } ?? withoutFragment.endIndex
        let authority = withoutFragment[..<authorityEnd]
        let target = withoutFragment[authorityEnd...]
        self.target = target.isEmpty ? "/" : (target.first == "?" ? "/" + target : String(target))
        guard !authority.contains("@") else {
            throw Problem(message: "the answer URL carries user information, which the app never sends")
        }
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else {
                throw Problem(message: "the answer URL's IPv6 address has no closing bracket")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw Problem(message: "the answer URL's host is malformed") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw Problem(message: "the answer URL \(text) has no host") }
        host = String(hostPart)
        if let portPart {
            guard let port = Int(portPart), (1...65535).contains(port) else {
                throw Problem(message: "the answer URL's port \(portPart) is not a number from 1 to 65535")
            }
            self.port = port
        } else {
            port = isSecure ? 443 : 80
        }
    }
}
