import Foundation
import Testing

/// `send-push` and `apns-jwt check` with a real proxy (`tinyproxy`) between them and the emulator.
///
/// Every tool gets an explicit environment (`BuiltTool` passes only PATH besides it), so the
/// machine's own proxy variables never leak in.
@Suite("proxies end to end")
struct ProxyEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup

    init() throws {
        setup = try ProviderSetup()
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": setup.directory.file("devices.json")] }

    func delivered(_ emulator: RunningEmulator, _ count: Int) -> Int {
        emulator.waitForRecords(count).filter { $0["status"] as? Int == 200 }.count
    }

    /// The `proxy` line of `apns-jwt check`'s report.
    func checkLine(_ env: [String: String], _ arguments: [String] = []) throws -> String {
        let result = try BuiltTool.run("apns-jwt", ["check"] + arguments, environment: env)
        return try #require(
            result.stdout.split(separator: "\n").first { $0.dropFirst(6).hasPrefix("proxy ") }.map(String.init),
            "no proxy line in: \(result.stdout) \(result.stderr)")
    }

    @Test("--proxy: every request goes through one CONNECT tunnel to the emulator, HTTP/2 inside it")
    func flagTunnels() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let proxy = try RunningTinyproxy()
        let tokens = (1...20).flatMap { ["--token", hexToken($0)] }
        let result = try BuiltTool.run(
            "send-push", ["--proxy", proxy.url, "--body", "via proxy"] + tokens,
            environment: clientEnvironment(emulator))
        result.expectSuccess()
        #expect(result.stderr.contains("20 delivered, 0 failed"))
        #expect(delivered(emulator, 20) == 20)
        // The emulator speaks only HTTP/2, so these answers prove h2 was negotiated inside the
        // tunnel; one CONNECT for twenty requests proves they were multiplexed on it.
        #expect(proxy.waitForConnects(1) == ["127.0.0.1:\(emulator.port)"])
    }

    @Test("plain-http prior-knowledge URLs are tunnelled too, not handed to the proxy as HTTP/1.1 requests")
    func priorKnowledgeTunnels() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let proxy = try RunningTinyproxy()
        let result = try BuiltTool.run(
            "send-push", ["--proxy", proxy.url, "--body", "plain", "--token", hexToken(1)],
            environment: clientEnvironment(emulator, plain: true))
        result.expectSuccess()
        #expect(delivered(emulator, 1) == 1)
        #expect(proxy.waitForConnects(1).first == "127.0.0.1:\(emulator.port)")
    }

    @Test("HTTPS_PROXY and the config file's proxy key are used like --proxy")
    func environmentAndConfigFile() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let proxy = try RunningTinyproxy()
        var env = clientEnvironment(emulator)
        env["HTTPS_PROXY"] = proxy.url
        try BuiltTool.run("send-push", ["--body", "env", "--token", hexToken(1)], environment: env).expectSuccess()
        #expect(proxy.waitForConnects(1).count == 1)

        env["HTTPS_PROXY"] = nil
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"proxy": "\#(proxy.url)"}"#)
        try BuiltTool.run("send-push", ["--body", "file", "--token", hexToken(2)], environment: env).expectSuccess()
        #expect(proxy.waitForConnects(2).count == 2)
        #expect(delivered(emulator, 2) == 2)
    }

    @Test(
        "libcurl's variable order decides, and check names the same variable: https_proxy before HTTPS_PROXY and ALL_PROXY"
    )
    func environmentPrecedence() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let proxy = try RunningTinyproxy()
        let dead = try BoundSocket()
        var env = clientEnvironment(emulator)
        env["https_proxy"] = proxy.url
        env["HTTPS_PROXY"] = "http://127.0.0.1:\(dead.port)"
        env["ALL_PROXY"] = "http://127.0.0.1:\(dead.port)"
        try BuiltTool.run(
            "send-push", ["--body", "lowercase wins", "--token", hexToken(1), "--retries", "0"], environment: env
        ).expectSuccess()
        #expect(proxy.waitForConnects(1).count == 1)
        let line = try checkLine(env)
        #expect(line.contains(proxy.url))
        #expect(line.contains("[env]"))
        #expect(line.hasSuffix("from https_proxy"))
    }

    @Test("NO_PROXY=127.0.0.1 bypasses the proxy, from HTTPS_PROXY and from --proxy alike")
    func noProxyBypasses() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let proxy = try RunningTinyproxy()
        var env = clientEnvironment(emulator)
        env["NO_PROXY"] = "localhost,127.0.0.1"
        env["HTTPS_PROXY"] = proxy.url
        try BuiltTool.run("send-push", ["--body", "direct", "--token", hexToken(1)], environment: env).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--body", "direct too", "--token", hexToken(2), "--proxy", proxy.url], environment: env
        ).expectSuccess()
        #expect(delivered(emulator, 2) == 2)

        // A request that does use the proxy, sent after them: once its CONNECT is logged, any from
        // the two runs above would have been logged before it.
        env["NO_PROXY"] = nil
        try BuiltTool.run("send-push", ["--body", "marker", "--token", hexToken(3)], environment: env).expectSuccess()
        #expect(proxy.waitForConnects(1).count == 1, "only the marker went through tinyproxy:\n\(proxy.log)")
    }

    @Test("a proxy that does not listen: exit 69, and the message names the proxy without its password")
    func proxyDown() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let dead = try BoundSocket()
        let shown = "http://***@127.0.0.1:\(dead.port)"
        let result = try BuiltTool.run(
            "send-push",
            [
                "--proxy", "http://ada:s3cret@127.0.0.1:\(dead.port)", "--body", "x",
                "--token", hexToken(1), "--retries", "0",
            ], environment: clientEnvironment(emulator))
        #expect(result.status == 69, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("no answer: through proxy \(shown) (from --proxy): "), "\(result.stdout)")
        #expect(!(result.stdout + result.stderr).contains("s3cret"))
        #expect(emulator.records().isEmpty)

        var env = clientEnvironment(emulator)
        env["HTTPS_PROXY"] = "http://ada:s3cret@127.0.0.1:\(dead.port)"
        let fromEnvironment = try BuiltTool.run(
            "send-push", ["--body", "x", "--token", hexToken(1), "--retries", "0", "--json"], environment: env)
        #expect(fromEnvironment.status == 69)
        #expect(
            fromEnvironment.stdout.contains("through proxy \(shown) (from HTTPS_PROXY)"), "\(fromEnvironment.stdout)")
        #expect(!(fromEnvironment.stdout + fromEnvironment.stderr).contains("s3cret"))
    }

    @Test("a proxy that refuses the tunnel (403 to CONNECT): exit 69, nothing got through, not a temporary failure")
    func tunnelRefused() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let proxy = try RunningTinyproxy(connectPorts: [443])
        let result = try BuiltTool.run(
            "send-push", ["--proxy", proxy.url, "--body", "x", "--token", hexToken(1), "--retries", "0"],
            environment: clientEnvironment(emulator))
        #expect(result.status == 69, "\(result.stdout) \(result.stderr)")
        #expect(
            result.stdout.contains("through proxy \(proxy.url) (from --proxy): CONNECT tunnel failed, response 403"),
            "\(result.stdout)")
        #expect(proxy.waitForConnects(1) == ["127.0.0.1:\(emulator.port)"])
        #expect(emulator.records().isEmpty)
    }

    @Test("a proxy scheme libcurl cannot use exits 78 naming the flag or the config key and file; nothing is sent")
    func badScheme() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        let flag = try BuiltTool.run(
            "send-push", ["--proxy", "ftp://ada:s3cret@127.0.0.1:21", "--body", "x", "--token", hexToken(1)],
            environment: env)
        #expect(flag.status == 78)
        #expect(
            flag.stderr.contains(
                #"--proxy must be a proxy URL starting with http://, https://, socks5h://, socks5://, socks4a:// or socks4://, not "ftp://***@127.0.0.1:21""#
            ), "\(flag.stderr)")
        #expect(!flag.stderr.contains("s3cret"))

        let config = try setup.directory.write("config.json", #"{"proxy": "127.0.0.1:3128"}"#)
        env["PUSHKIT_CONFIG"] = config
        let file = try BuiltTool.run("send-push", ["--body", "x", "--token", hexToken(1)], environment: env)
        #expect(file.status == 78)
        #expect(file.stderr.contains("proxy in \(config) must be a proxy URL"), "\(file.stderr)")
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(check.status == 78)
        // The doctor reports the bad value as its config file line, in the full report.
        #expect(check.stdout.contains("proxy in \(config) must be a proxy URL"), "\(check.stdout)")
        #expect(emulator.records().isEmpty)
    }

    @Test(
        "apns-jwt check reports the proxy for the APNs URL and its source: flag, config key, variable, no_proxy, none")
    func checkReportsTheProxy() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let flag = try checkLine(env, ["--proxy", "http://ada:s3cret@proxy.corp:3128"])
        #expect(flag.hasPrefix("ok    proxy"))
        #expect(flag.contains("http://***@proxy.corp:3128"))
        #expect(flag.contains("[flag]"))
        #expect(flag.hasSuffix("from --proxy"))
        #expect(!flag.contains("s3cret"))

        var fileEnv = env
        let config = try setup.directory.write("config.json", #"{"proxy": "socks5h://proxy.corp:1080"}"#)
        fileEnv["PUSHKIT_CONFIG"] = config
        fileEnv["HTTPS_PROXY"] = "http://other:1"
        let file = try checkLine(fileEnv)
        #expect(file.contains("socks5h://proxy.corp:1080"))
        #expect(file.contains("[file]"))
        #expect(file.hasSuffix("from proxy in \(config)"))

        var variableEnv = env
        variableEnv["ALL_PROXY"] = "http://ada:s3cret@proxy.corp:3128"
        let variable = try checkLine(variableEnv)
        #expect(variable.contains("http://***@proxy.corp:3128"))
        #expect(variable.contains("[env]"))
        #expect(variable.hasSuffix("from ALL_PROXY"))

        var exemptEnv = variableEnv
        exemptEnv["no_proxy"] = "localhost, 127.0.0.0/8"
        let exempt = try checkLine(exemptEnv, ["--proxy", "http://proxy.corp:3128"])
        #expect(exempt.contains("(none)"))
        #expect(
            exempt.hasSuffix(
                "no_proxy exempts 127.0.0.1 (entry 127.0.0.0/8): connecting directly; the proxy http://proxy.corp:3128 from --proxy is not used"
            ), "\(exempt)")

        let none = try checkLine(env)
        #expect(none.contains("(none)"))
        #expect(none.hasSuffix("connecting directly: no --proxy, proxy key or proxy environment variable"))
    }
}
