import Foundation
import Testing

/// Issue 11: TLS failures are reported as such, exit 69, and never fall back to an unverified
/// connection. The emulator serves certificates made by Python's `cryptography`
/// (Tests/Tools/make_test_certificates.py): a good one, an expired one and one for another host,
/// all signed by a test CA; `send-push` is told to trust that CA, or another one.
@Suite("TLS failures")
struct TLSFailureTests {
    let setup: ProviderSetup
    let certificates: String

    init() throws {
        setup = try ProviderSetup()
        certificates = setup.directory.file("certificates")
        try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
        let script = RepositoryFiles.path("Tests/Tools/make_test_certificates.py")
        try BuiltTool.runSystem("python3", [script, certificates]).expectSuccess()
    }

    /// `send-push` to one token at an emulator serving `leaf`, trusting `ca`.
    func send(serving leaf: String, trusting ca: String) throws -> (result: ToolResult, records: Int) {
        let emulator = try RunningEmulator(
            ["--quiet", "--cert", "\(certificates)/\(leaf).pem", "--cert-key", "\(certificates)/\(leaf)-key.pem"],
            environment: setup.environment)
        var env = setup.environment
        env["APNS_PRODUCTION_URL"] = emulator.baseURL
        env["APNS_CA_FILE"] = "\(certificates)/\(ca).pem"
        let result = try BuiltTool.run(
            "send-push", ["--title", "t", "--token", String(repeating: "ab", count: 32), "--json", "--timeout", "10"],
            environment: env)
        return (result, emulator.records().count)
    }

    @Test("the good certificate and its CA: delivered (so the failures below are the certificates' doing)")
    func goodCertificate() throws {
        let (result, records) = try send(serving: "good", trusting: "ca")
        result.expectSuccess()
        #expect(records == 1)
    }

    @Test(
        "a wrong CA, an expired certificate, a certificate for another host: exit 69, named as TLS, nothing sent",
        arguments: [
            ("good", "other-ca", "certificate"),
            ("expired", "ca", "expired"),
            ("wrong-host", "ca", "127.0.0.1"),
        ])
    func failures(leaf: String, ca: String, named: String) throws {
        let (result, records) = try send(serving: leaf, trusting: ca)
        #expect(result.status == 69, "\(leaf) trusting \(ca): \(result.stdout) \(result.stderr)")
        let line = try #require(jsonLines(result.stdout).first)
        #expect(line["outcome"] as? String == "failed" && line["status"] as? Int == 0)
        let reason = (line["reason"] as? String ?? "").lowercased()
        #expect(reason.contains(named), "\(leaf): \(reason)")
        #expect(line["attempts"] as? Int == 1, "a TLS failure is not retried")
        #expect(records == 0, "never sent over an unverified connection")
    }
}
