import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore

/// What `apns-jwt check` says about the proxy: where it comes from, when NO_PROXY exempts the APNs
/// host, and that a proxy's password never shows (ProxyResolutionTests has the resolution itself).
@Suite("apns-jwt check: the proxy")
struct ProxyDoctorTests {
    func configuration(flag: String? = nil, file: String? = nil, env: [String: String] = [:]) throws -> Configuration {
        var flags = ConfigurationFlags()
        flags.proxy = flag
        let values: [String: JSONValue] = file.map { ["proxy": .string($0)] } ?? [:]
        return try Configuration(
            flags: flags, environment: env.merging(["HOME": "/home/ada"]) { $1 },
            file: ConfigurationFile(path: "/etc/pk.json", exists: true, values: values))
    }

    func proxyFinding(_ configuration: Configuration) throws -> DoctorFinding {
        try #require(ConfigurationDoctor(configuration: configuration).findings().first { $0.setting == "proxy" })
    }

    @Test("check names the proxy and its source: flag, config key, environment variable, or none")
    func doctorSources() throws {
        let flag = try proxyFinding(
            try configuration(flag: "http://u:secret@proxy:3128", env: ["HTTPS_PROXY": "http://env:1"]))
        #expect(
            flag
                == DoctorFinding(
                    setting: "proxy", value: "http://***@proxy:3128", source: "flag", severity: .ok,
                    message: "from --proxy"))
        let file = try proxyFinding(try configuration(file: "socks5h://proxy:1080"))
        #expect(file.value == "socks5h://proxy:1080")
        #expect(file.source == "file")
        #expect(file.message == "from proxy in /etc/pk.json")
        let env = try proxyFinding(try configuration(env: ["all_proxy": "proxy:3128", "ALL_PROXY": "http://other:1"]))
        #expect(
            env
                == DoctorFinding(
                    setting: "proxy", value: "proxy:3128", source: "env", severity: .ok,
                    message: "from all_proxy (no scheme: libcurl uses http://)"))
        let none = try proxyFinding(try configuration())
        #expect(none.value == "(none)")
        #expect(none.severity == .ok)
        #expect(none.message.hasPrefix("connecting directly"))
    }

    @Test("check says when NO_PROXY exempts the APNs host, and which proxy it turns off")
    func doctorExemption() throws {
        let finding = try proxyFinding(
            try configuration(flag: "http://u:secret@proxy:3128", env: ["NO_PROXY": "localhost,push.apple.com"]))
        #expect(finding.value == "(none)")
        #expect(finding.source == "env")
        #expect(
            finding.message
                == "NO_PROXY exempts api.push.apple.com (entry push.apple.com): connecting directly; the proxy http://***@proxy:3128 from --proxy is not used"
        )
    }

    @Test("check fails an environment proxy whose scheme libcurl rejects, without showing its password")
    func doctorBadEnvironmentProxy() throws {
        let finding = try proxyFinding(try configuration(env: ["HTTPS_PROXY": "ftp://u:secret@proxy:21"]))
        #expect(finding.severity == .error)
        #expect(finding.value == "ftp://***@proxy:21")
        #expect(finding.message.hasPrefix("HTTPS_PROXY has a scheme libcurl cannot use"))
    }
}
