/// Which proxy libcurl uses for one URL, and why: the configured proxy (`--proxy`, config key
/// `proxy`), else the environment, unless `no_proxy`/`NO_PROXY` exempts the host.
///
/// `send-push` does not act on this: it sets `CURLOPT_PROXY` only for a configured proxy and lets
/// libcurl read the environment itself. This type repeats libcurl 7.88's choice so `apns-jwt
/// check` can report it and failures can name the proxy:
/// 1. `no_proxy`, else `NO_PROXY` (the first one set, not empty), is checked first and exempts the
///    host even from a configured proxy (libcurl applies it to `CURLOPT_PROXY` too);
/// 2. a configured proxy wins over every environment variable;
/// 3. for an `https` URL: `https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`; for an `http`
///    URL only the lowercase `http_proxy` (libcurl ignores `HTTP_PROXY`, a CGI hazard), then
///    `all_proxy`, `ALL_PROXY`. Empty variables count as unset.
package struct ProxyResolution: Sendable, Equatable {
    /// The proxy used, and its source; `nil` for a direct connection.
    package let proxy: Setting<String>?
    /// Set when `no_proxy`/`NO_PROXY` exempts the host.
    package let exemption: Exemption?

    /// A `no_proxy` match: the variable, its entry that matched, and the proxy it turned off.
    package struct Exemption: Sendable, Equatable {
        /// `no_proxy` or `NO_PROXY`.
        package let variable: String
        /// The entry that matched the host (`*` for the wildcard).
        package let entry: String
        /// The proxy that would have applied without the exemption, if any.
        package let bypassed: Setting<String>?
    }

    /// Every environment variable libcurl reads for proxies, in the order it reads them.
    package static let environmentVariables = [
        "no_proxy", "NO_PROXY", "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
    ]

    /// A resolution as given; `resolve(url:configured:environment:)` is how the tools make one.
    package init(proxy: Setting<String>?, exemption: Exemption?) {
        self.proxy = proxy
        self.exemption = exemption
    }

    /// The proxy libcurl uses for `url`.
    /// - Parameters:
    ///   - url: the request URL (`https://host[:port]/...`).
    ///   - configured: `--proxy` or the config file's `proxy`.
    ///   - environment: the process environment (only the proxy variables are read).
    package static func resolve(
        url: String, configured: Setting<String>?, environment: [String: String]
    ) -> ProxyResolution {
        let scheme = url.firstRange(of: "://").map { url[..<$0.lowerBound].lowercased() } ?? "http"
        let candidate = configured ?? environmentProxy(scheme: scheme, environment: environment)
        for variable in ["no_proxy", "NO_PROXY"] {
            guard let list = environment[variable], !list.isEmpty else { continue }
            if let entry = NoProxyList(list).entry(exempting: host(of: url)) {
                return ProxyResolution(
                    proxy: nil, exemption: Exemption(variable: variable, entry: entry, bypassed: candidate))
            }
            break // libcurl reads only the first of the two that is set
        }
        return ProxyResolution(proxy: candidate, exemption: nil)
    }

    /// The proxy variable libcurl picks for a URL with `scheme`, when no proxy is configured.
    static func environmentProxy(scheme: String, environment: [String: String]) -> Setting<String>? {
        var names = ["\(scheme)_proxy"]
        if scheme != "http" { names.append("\(scheme.uppercased())_PROXY") }
        names += ["all_proxy", "ALL_PROXY"]
        for name in names {
            if let value = environment[name], !value.isEmpty { return Setting(value, from: .environment(name)) }
        }
        return nil
    }

    /// The host of `url` without user info or port; IPv6 literals keep their brackets.
    package static func host(of url: String) -> String {
        var rest = Substring(url)
        if let separator = rest.firstRange(of: "://") { rest = rest[separator.upperBound...] }
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") { return String(rest[...close]) }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return String(rest)
    }
}
