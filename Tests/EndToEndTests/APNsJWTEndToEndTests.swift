import Foundation
import Testing

/// `apns-jwt` run as a user runs it: built binary, real files, `openssl` as the independent verifier.
@Suite("apns-jwt end to end")
struct APNsJWTEndToEndTests {
    let directory: TemporaryDirectory
    let key: OpenSSLKey
    let environment: [String: String]

    init() throws {
        (directory, key, environment) = try ProviderSetup().withoutTopic()
    }

    /// Verifies `token` with `openssl dgst -verify` against `publicKeyPath`, after converting the
    /// JWS r‖s signature to the DER form openssl expects.
    func opensslVerifies(_ token: String, publicKeyPath: String) throws -> Bool {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let input = try directory.write("input-\(UUID().uuidString)", String(parts[0] + "." + parts[1]))
        let raw = try #require(base64URLDecode(String(parts[2])))
        #expect(raw.count == 64, "ES256 JWS signatures are 64 bytes of r‖s")
        let signaturePath = directory.file("sig-\(UUID().uuidString).der")
        try derSignature(fromRaw: raw).write(to: URL(fileURLWithPath: signaturePath))
        let result = try BuiltTool.runSystem(
            "openssl", ["dgst", "-sha256", "-verify", publicKeyPath, "-signature", signaturePath, input])
        return result.status == 0 && result.stdout.contains("Verified OK")
    }

    @Test("prints one token and a newline, and openssl verifies it with the key's public half")
    func tokenVerifiesWithOpenSSL() throws {
        let result = try BuiltTool.run("apns-jwt", [], environment: environment)
        result.expectSuccess()
        #expect(result.stdout.hasSuffix("\n"))
        let token = String(result.stdout.dropLast())
        #expect(!token.contains("\n"))
        #expect(try opensslVerifies(token, publicKeyPath: key.publicKeyPath))

        let header = try jsonObject(base64URL: String(token.split(separator: ".")[0]))
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ABCDE12345"] as NSDictionary)
        let claims = try jsonObject(base64URL: String(token.split(separator: ".")[1]))
        #expect(claims["iss"] as? String == "TEAM678901")
        let iat = try #require(claims["iat"] as? Int)
        #expect(abs(iat - Int(Date().timeIntervalSince1970)) < 60)
        #expect(!token.contains("="), "base64url without padding")
    }

    @Test("a token signed by another key fails openssl verification")
    func otherKeyFailsVerification() throws {
        let other = try OpenSSLKey(in: directory, name: "other")
        let token = try BuiltTool.run("apns-jwt", [], environment: environment).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(try opensslVerifies(token, publicKeyPath: key.publicKeyPath))
        #expect(try !opensslVerifies(token, publicKeyPath: other.publicKeyPath))
    }

    @Test("a SEC1 'EC PRIVATE KEY' PEM signs tokens that verify")
    func sec1KeyWorks() throws {
        var env = environment
        env["APNS_KEY_PATH"] = key.sec1Path
        let result = try BuiltTool.run("apns-jwt", ["--refresh"], environment: env)
        result.expectSuccess()
        #expect(
            try opensslVerifies(
                result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), publicKeyPath: key.publicKeyPath))
    }
}

func base64URLDecode(_ text: String) -> Data? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard)
}

func jsonObject(base64URL: String) throws -> [String: Any] {
    let data = try #require(base64URLDecode(base64URL))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// DER `SEQUENCE { INTEGER r, INTEGER s }` from a 64-byte r‖s signature (the form openssl verifies).
func derSignature(fromRaw raw: Data) -> Data {
    func integer(_ bytes: Data) -> Data {
        var value = Data(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty { value = Data([0]) }
        if value[value.startIndex] & 0x80 != 0 { value.insert(0, at: 0) }
        return Data([0x02, UInt8(value.count)]) + value
    }
    let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
    return Data([0x30, UInt8(body.count)]) + body
}
