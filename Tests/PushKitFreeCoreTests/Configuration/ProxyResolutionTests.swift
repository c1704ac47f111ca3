import Foundation
import Testing
@testable import PushKitFreeCore

/// Which proxy applies to the APNs URL (as libcurl 7.88 decides), how proxy URLs are checked, and
/// that their credentials never show.
@Suite("proxy resolution")
struct ProxyResolutionTests {
    static let apns = "https://api.push.apple.com"

    // MARK: no_proxy matching

    struct Match: Sendable, CustomTestStringConvertible {
        let host: String
        let list: String
        /// The entry that should match, or nil for "the proxy is used".
        let entry: String?
        var testDescription: String { "\(host) against \"\(list)\"" }
    }

    /// Each row was checked against libcurl 7.88.1 (`curl --noproxy LIST -x http://127.0.0.1:1 URL`).
    static let matches: [Match] = [
        Match(host: "api.push.apple.com", list: "*", entry: "*"),
        Match(host: "api.push.apple.com", list: "api.push.apple.com", entry: "api.push.apple.com"),
        Match(host: "api.push.apple.com", list: "API.PUSH.APPLE.COM", entry: "API.PUSH.APPLE.COM"),
        Match(host: "api.push.apple.com", list: "apple.com", entry: "apple.com"),
        Match(host: "api.push.apple.com", list: ".apple.com", entry: ".apple.com"),
        Match(host: "api.push.apple.com", list: "push.apple.com", entry: "push.apple.com"),
        Match(host: "api.push.apple.com", list: "com", entry: "com"),
        Match(host: "api.push.apple.com", list: "apple.com.", entry: "apple.com."),
        Match(host: "api.push.apple.com.", list: "apple.com", entry: "apple.com"),
        Match(host: "apple.com", list: ".apple.com", entry: ".apple.com"),
        Match(host: "api.push.apple.com", list: "pple.com", entry: nil),
        Match(host: "apple.com", list: "..apple.com", entry: nil),
        Match(host: "api.push.apple.com", list: "*.apple.com", entry: nil),
        Match(host: "api.push.apple.com", list: "foo,*", entry: nil),
        Match(host: "api.push.apple.com", list: " * ", entry: nil),
        Match(host: "api.push.apple.com", list: "foo apple.com", entry: "apple.com"),
        Match(host: "api.push.apple.com", list: "foo\tapple.com", entry: "apple.com"),
        Match(host: "api.push.apple.com", list: "a,b c , ,d,apple.com", entry: "apple.com"),
        Match(host: "api.push.apple.com", list: "api.push.apple.com:443", entry: nil),
        Match(host: "api.push.apple.com", list: ".", entry: nil),
        Match(host: "127.0.0.1", list: "localhost,127.0.0.1", entry: "127.0.0.1"),
        Match(host: "127.0.0.1", list: "127.0.0.0/8", entry: "127.0.0.0/8"),
        Match(host: "127.0.0.1", list: "127.0.0.0/31", entry: "127.0.0.0/31"),
        Match(host: "127.0.0.1", list: "127.0.0.2/31", entry: nil),
        Match(host: "127.0.0.1", list: "127.0.0.2/0", entry: nil),
        Match(host: "127.0.0.1", list: "127.0.0.1/33", entry: nil),
        Match(host: "127.0.0.1", list: "127.0.0.1/x", entry: "127.0.0.1/x"),
        Match(host: "127.0.0.1", list: "127.0.0.1:9", entry: nil),
        Match(host: "127.0.0.1", list: "127.000.0.1", entry: nil),
        Match(host: "127.0.0.1", list: "localhost", entry: nil),
        Match(host: "127.0.0.1", list: ".0.0.1", entry: nil),
        Match(host: "127.0.0.1", list: "0.0.1", entry: nil),
        Match(host: "localhost", list: "127.0.0.1", entry: nil),
        Match(host: "[::1]", list: "::1", entry: "::1"),
        Match(host: "::1", list: "::1", entry: "::1"),
        Match(host: "[::1]", list: "[::1]", entry: nil),
        Match(host: "[::1]", list: "0:0::1", entry: nil),
        Match(host: "[::1]", list: "::/0", entry: nil),
    ]

    @Test("no_proxy entries match hosts the way libcurl 7.88 matches them", arguments: matches)
    func noProxyMatching(_ match: Match) {
        #expect(NoProxyList(match.list).entry(exempting: match.host) == match.entry)
    }

    @Test("an empty list exempts nothing")
    func emptyList() {
        #expect(NoProxyList("").entry(exempting: "api.push.apple.com") == nil)
        #expect(NoProxyList(",, ").entry(exempting: "api.push.apple.com") == nil)
    }

    // MARK: which proxy applies

    @Test("for an https URL: https_proxy, then HTTPS_PROXY, then all_proxy, then ALL_PROXY; empty ones count as unset")
    func httpsPrecedence() {
        let all = [
            "https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:1", "all_proxy": "http://c:1",
            "ALL_PROXY": "http://d:1",
        ]
        var env = all
        var expected = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        while let name = expected.first {
            let resolution = ProxyResolution.resolve(url: Self.apns, configured: nil, environment: env)
            #expect(resolution.proxy == Setting(all[name]!, from: .environment(name)))
            env[name] = ""
            expected.removeFirst()
        }
        #expect(
            ProxyResolution.resolve(url: Self.apns, configured: nil, environment: env)
                == ProxyResolution(proxy: nil, exemption: nil))
    }

    @Test("for an http URL only the lowercase http_proxy counts, then all_proxy; https_proxy does not apply")
    func httpPrecedence() {
        let url = "http://127.0.0.1:2197"
        let upper = ProxyResolution.resolve(
            url: url, configured: nil, environment: ["HTTP_PROXY": "http://a:1", "https_proxy": "http://b:1"])
        #expect(upper.proxy == nil)
        let lower = ProxyResolution.resolve(
            url: url, configured: nil, environment: ["http_proxy": "http://a:1", "all_proxy": "http://c:1"])
        #expect(lower.proxy == Setting("http://a:1", from: .environment("http_proxy")))
        let fallback = ProxyResolution.resolve(
            url: url, configured: nil, environment: ["HTTPS_PROXY": "http://b:1", "all_proxy": "http://c:1"])
        #expect(fallback.proxy == Setting("http://c:1", from: .environment("all_proxy")))
    }

    @Test("a configured proxy beats every environment variable")
    func configuredWins() {
        let configured = Setting("socks5h://p:1080", from: .flag("--proxy"))
        let resolution = ProxyResolution.resolve(
            url: Self.apns, configured: configured,
            environment: ["https_proxy": "http://a:1", "ALL_PROXY": "http://d:1"])
        #expect(resolution.proxy == configured)
        #expect(resolution.exemption == nil)
    }

    @Test("no_proxy exempts the host from an environment proxy and from a configured one alike")
    func exemption() {
        let env = ["HTTPS_PROXY": "http://a:1", "NO_PROXY": "example.org, .apple.com"]
        let fromEnv = ProxyResolution.resolve(url: Self.apns + "/3/device/ab", configured: nil, environment: env)
        #expect(fromEnv.proxy == nil)
        #expect(
            fromEnv.exemption
                == .init(
                    variable: "NO_PROXY", entry: ".apple.com",
                    bypassed: Setting("http://a:1", from: .environment("HTTPS_PROXY"))))

        let configured = Setting("http://p:3128", from: .configFile(key: "proxy", path: "/etc/pk.json"))
        let fromFile = ProxyResolution.resolve(url: Self.apns, configured: configured, environment: env)
        #expect(fromFile.proxy == nil)
        #expect(fromFile.exemption?.bypassed == configured)

        let direct = ProxyResolution.resolve(url: Self.apns, configured: nil, environment: ["no_proxy": "*"])
        #expect(
            direct == ProxyResolution(proxy: nil, exemption: .init(variable: "no_proxy", entry: "*", bypassed: nil)))
    }

    @Test("libcurl reads no_proxy when it is set and not empty, and NO_PROXY only otherwise")
    func noProxyVariableOrder() {
        let proxy = ["HTTPS_PROXY": "http://a:1"]
        let lowerWins = ProxyResolution.resolve(
            url: Self.apns, configured: nil,
            environment: proxy.merging(["no_proxy": "example.org", "NO_PROXY": "apple.com"]) { $1 })
        #expect(lowerWins.proxy?.value == "http://a:1")
        let emptyLower = ProxyResolution.resolve(
            url: Self.apns, configured: nil,
            environment: proxy.merging(["no_proxy": "", "NO_PROXY": "apple.com"]) { $1 })
        #expect(emptyLower.exemption?.variable == "NO_PROXY")
    }

    @Test(
        "the host of a URL leaves out user info, port and path; no_proxy ignores the port",
        arguments: [
            ("https://api.push.apple.com", "api.push.apple.com"),
            ("https://api.push.apple.com:2197/3/device/x", "api.push.apple.com"),
            ("https://u:p@Host.Example:443?q", "Host.Example"),
            ("http://127.0.0.1:8080", "127.0.0.1"),
            ("https://[::1]:2197/", "[::1]"),
        ])
    func hostOfURL(url: String, host: String) {
        #expect(ProxyResolution.host(of: url) == host)
        #expect(
            ProxyResolution.resolve(
                url: url, configured: nil,
                environment: [
                    "HTTPS_PROXY": "http://a:1", "http_proxy": "http://a:1",
                    "no_proxy": host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
                ]
            )
            .proxy == nil)
    }

    // MARK: checking and masking

    @Test(
        "credentials are masked wherever they are",
        arguments: [
            ("http://user:secret@proxy:3128", "http://***@proxy:3128"),
            ("socks5h://user@proxy:1080", "socks5h://***@proxy:1080"),
            ("http://user:p@ss/w:rd@proxy:3128/", "http://***@proxy:3128/"),
            ("user:secret@proxy:3128", "***@proxy:3128"),
            ("http://proxy:3128", "http://proxy:3128"),
            ("proxy:3128", "proxy:3128"),
        ])
    func masking(text: String, shown: String) {
        #expect(ProxyAddress.masked(text) == shown)
    }

    @Test(
        "every libcurl proxy scheme is accepted, in any case",
        arguments: [
            "http://127.0.0.1:3128", "HTTP://proxy", "https://proxy.corp:443", "socks5h://u:p@proxy:1080",
            "socks5://proxy",
            "socks4a://proxy:1080", "socks4://[::1]:1080", "http://proxy:3128/",
        ])
    func acceptedSchemes(text: String) throws {
        try ProxyAddress.validate(Setting(text, from: .flag("--proxy")))
    }

    @Test(
        "a proxy URL libcurl cannot use exits 78 naming its source, credentials masked",
        arguments: [
            (
                "ftp://user:secret@proxy:21",
                "must be a proxy URL starting with http://, https://, socks5h://, socks5://, socks4a:// or socks4://"
            ),
            ("proxy.corp:3128", "must be a proxy URL starting with"),
            ("http://user:secret@", "names no proxy host"),
            ("http://user:secret@proxy:0", "has a port that is not 1-65535"),
            ("http://user:secret@proxy:99999", "has a port that is not 1-65535"),
            ("http://user:secret@proxy:", "has a port that is not 1-65535"),
            ("http://user:secret@[::1", "unclosed ["),
            ("http://user:secret@proxy :3128", "must not contain spaces"),
        ])
    func rejected(text: String, problem: String) {
        for source in [SettingSource.flag("--proxy"), .configFile(key: "proxy", path: "/etc/pk.json")] {
            let error = #expect(throws: ConfigurationError.self) {
                try ProxyAddress.validate(Setting(text, from: source))
            }
            #expect(error?.exitStatus == .configuration)
            #expect(error?.message.hasPrefix("\(source) ") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("secret") == false)
        }
    }

    // MARK: configuration

    func configuration(flag: String? = nil, file: String? = nil, env: [String: String] = [:]) throws -> Configuration {
        var flags = ConfigurationFlags()
        flags.proxy = flag
        let values: [String: JSONValue] = file.map { ["proxy": .string($0)] } ?? [:]
        return try Configuration(
            flags: flags, environment: env.merging(["HOME": "/home/ada"]) { $1 },
            file: ConfigurationFile(path: "/etc/pk.json", exists: true, values: values))
    }

    @Test("--proxy beats the config file's proxy; neither leaves it to the environment; proxy is a known key")
    func configurationPrecedence() throws {
        let both = try configuration(flag: "http://flag:1", file: "http://file:1", env: ["HTTPS_PROXY": "http://env:1"])
        #expect(both.proxy == Setting("http://flag:1", from: .flag("--proxy")))
        let fileOnly = try configuration(file: "socks5h://file:1080")
        #expect(fileOnly.proxy == Setting("socks5h://file:1080", from: .configFile(key: "proxy", path: "/etc/pk.json")))
        #expect(fileOnly.warnings.isEmpty)
        let none = try configuration(env: ["HTTPS_PROXY": "http://env:1", "NO_PROXY": "x", "APNS_TOPIC": "t"])
        #expect(none.proxy == nil)
        #expect(none.proxyEnvironment == ["HTTPS_PROXY": "http://env:1", "NO_PROXY": "x"])
        #expect(
            none.proxyResolution(for: Self.apns).proxy == Setting("http://env:1", from: .environment("HTTPS_PROXY")))
    }

    @Test("a bad proxy in the config file names the key and the file")
    func badConfiguredProxy() {
        let error = #expect(throws: ConfigurationError.self) { try configuration(file: "gopher://u:secret@proxy") }
        #expect(error?.message.hasPrefix("proxy in /etc/pk.json must be a proxy URL") == true)
        #expect(error?.message.contains("\"gopher://***@proxy\"") == true)
    }
}
