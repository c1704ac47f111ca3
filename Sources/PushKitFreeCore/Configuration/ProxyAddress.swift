/// A proxy URL as `--proxy` or the config file's `proxy` key give it: checked, and shown only with
/// its credentials masked.
///
/// The text is handed to libcurl unchanged (`CURLOPT_PROXY`); this type only decides whether the
/// tools accept it and how it is printed.
package enum ProxyAddress {
    /// The proxy kinds libcurl 7.88 speaks, by URL scheme (compared without regard to case).
    /// `socks5h` and `socks4a` let the proxy resolve the APNs host name.
    package static let schemes = ["http", "https", "socks5h", "socks5", "socks4a", "socks4"]

    /// `text` with any credentials (`user:password@`) replaced by `***@`, for messages and reports.
    ///
    /// Everything between the scheme (or the start, for scheme-less values found in environment
    /// variables) and the last `@` is masked, so a password holding `/`, `:` or `@` never shows.
    package static func masked(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let afterScheme = text.firstRange(of: "://").map(\.upperBound)
        let start = afterScheme.flatMap { $0 <= at ? $0 : nil } ?? text.startIndex
        return String(text[..<start]) + "***" + String(text[at...])
    }

    /// The scheme of `text` in lowercase, or `nil` when it has none (libcurl then assumes http).
    package static func scheme(of text: String) -> String? {
        guard let separator = text.firstRange(of: "://") else { return nil }
        return text[..<separator.lowerBound].lowercased()
    }

    /// Checks a proxy URL a user configured.
    /// - Throws: `ConfigurationError` (exit 78) naming `source`, with the value masked, when the
    ///   scheme is missing or not one of `schemes`, the host is missing, or the port is not 1-65535.
    package static func validate(_ setting: Setting<String>) throws(ConfigurationError) {
        let text = setting.value
        let shown = "\"\(masked(text))\""
        guard let scheme = scheme(of: text), schemes.contains(scheme) else {
            throw ConfigurationError("\(setting.source) must be a proxy URL starting with \(schemeList), not \(shown)")
        }
        if text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7f } == true }) {
            throw ConfigurationError("\(setting.source) must not contain spaces or control characters: \(shown)")
        }
        var authority = text[text.firstRange(of: "://")!.upperBound...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let slash = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            authority = authority[..<slash]
        }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ConfigurationError("\(setting.source) has an unclosed [ in its host: \(shown)")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if let first = rest.first {
                guard first == ":" else {
                    throw ConfigurationError("\(setting.source) has text after its host: \(shown)")
                }
                port = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else {
            throw ConfigurationError("\(setting.source) names no proxy host: \(shown)")
        }
        if let port {
            guard !port.isEmpty, port.allSatisfy(\.isASCII), let number = Int(port), (1...65_535).contains(number)
            else {
                throw ConfigurationError("\(setting.source) has a port that is not 1-65535: \(shown)")
            }
        }
    }

    /// "http://, https://, socks5h://, socks5://, socks4a:// or socks4://".
    package static var schemeList: String {
        schemes.dropLast().map { "\($0)://" }.joined(separator: ", ") + " or \(schemes.last!)://"
    }
}
