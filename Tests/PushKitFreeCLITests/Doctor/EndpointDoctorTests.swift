import Foundation
import Testing

@testable import PushKitFreeCLI
@testable import PushKitFreeCore

/// What `apns-jwt check` says about the settings of the tools that ask questions: nothing when
/// neither is set, the secret file read as ask-push reads it (never shown), a plain-http endpoint
/// on another machine flagged.
@Suite("apns-jwt check: the endpoint settings")
struct EndpointDoctorTests {
    func findings(_ env: [String: String]) throws -> [DoctorFinding] {
        let configuration = try Configuration(
            flags: ConfigurationFlags(), environment: ["HOME": "/nonexistent"].merging(env) { $1 },
            file: ConfigurationFile(path: "/nonexistent/config.json", exists: false, values: [:]))
        return ConfigurationDoctor(configuration: configuration).findings()
    }

    func finding(_ setting: String, _ findings: [DoctorFinding]) -> DoctorFinding? {
        findings.first { $0.setting == setting }
    }

    @Test("with neither setting there is no endpoint line")
    func absent() throws {
        #expect(!(try findings([:])).contains { $0.setting.hasPrefix("endpoint") })
    }

    @Test("the secret file: missing is an error, open to others a warning, the secret never in the report")
    func secretFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("secret").path
        var env = ["PUSHKIT_ENDPOINT": "http://127.0.0.1:8100", "PUSHKIT_ENDPOINT_SECRET_FILE": path]
        #expect(finding("endpoint secret", try findings(env))?.severity == .error)
        FileManager.default.createFile(
            atPath: path, contents: Data("do-not-show-me\n".utf8), attributes: [.posixPermissions: 0o600])
        var all = try findings(env)
        #expect(finding("endpoint", all)?.severity == .ok && finding("endpoint secret", all)?.severity == .ok)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        all = try findings(env)
        #expect(finding("endpoint secret", all)?.severity == .warning)
        #expect(!DoctorReport.render(all).contains("do-not-show-me"))
        env["PUSHKIT_ENDPOINT_SECRET_FILE"] = nil
        #expect(finding("endpoint secret", try findings(env))?.message.hasPrefix("no endpoint secret") == true)
    }

    @Test(
        "plain http to another machine is a warning; to this one it is fine",
        arguments: [
            ("http://127.0.0.1:8100", false), ("http://localhost:8100/", false), ("http://[::1]:8100", false),
            ("https://push.example.net", false), ("http://push.example.net:8100", true),
        ])
    func clearText(url: String, warned: Bool) throws {
        let endpoint = finding("endpoint", try findings(["PUSHKIT_ENDPOINT": url]))
        #expect((endpoint?.severity == .warning) == warned, "\(url)")
    }
}
