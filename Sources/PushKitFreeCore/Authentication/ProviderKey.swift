#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// The APNs authentication key: a P-256 private key from the developer account's `.p8` file.
///
/// Accepts PKCS#8 PEM (`BEGIN PRIVATE KEY`, what Apple hands out) and SEC1 PEM
/// (`BEGIN EC PRIVATE KEY`, what `openssl ecparam -genkey` writes). Parsing and signing are
/// swift-crypto's; nothing here does cryptography by hand.
package struct ProviderKey: Sendable {
    /// The signing key.
    package let privateKey: P256.Signing.PrivateKey

    /// The first 16 hex digits of SHA-256 over the key's DER bytes (the PEM body, or swift-crypto's
    /// PKCS#8 encoding for a key made in memory): identifies the key in the token cache without
    /// storing anything secret, and is found without parsing the key, so a run that reuses a cached
    /// token never pays for the parse (see `ProviderCredentials.load`). The same key written as SEC1
    /// and as PKCS#8 has two fingerprints; that costs one token each, nothing else.
    package let fingerprint: String

    /// The public half as PEM, for servers that must verify tokens (the emulator).
    package var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// A key made in memory (tests, the emulator); its fingerprint is taken over swift-crypto's PKCS#8 DER.
    package init(privateKey: P256.Signing.PrivateKey) {
        self.init(privateKey: privateKey, fingerprint: Self.fingerprint(der: privateKey.derRepresentation))
    }

    private init(privateKey: P256.Signing.PrivateKey, fingerprint: String) {
        self.privateKey = privateKey
        self.fingerprint = fingerprint
    }

    /// Whether `pem` is an RSA private key: PKCS#1 (`BEGIN RSA PRIVATE KEY`), or PKCS#8 whose
    /// algorithm is rsaEncryption (the DER holds that object identifier, 1.2.840.113549.1.1.1).
    static func holdsRSAKey(_ pem: String) -> Bool {
        if pem.contains("BEGIN RSA PRIVATE KEY") { return true }
        guard pem.contains("BEGIN PRIVATE KEY") else { return false }
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body) else { return false }
        let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        return der.prefix(32).firstRange(of: rsaEncryption) != nil
    }

    /// Parses PEM text.
    /// - Parameter origin: how to name the key in errors (its path and the setting it came from).
    /// - Throws: `ProviderKeyError` (exit 78) when the text is not a P-256 private key.
    package init(pem: String, origin: String) throws(ProviderKeyError) {
        // CRLF line ends as LF, without the whitespace around the text: sliced, not rebuilt
        // character by character (every send and every uncached token parses the key).
        let text = pem.utf8.contains(13) ? pem.replacing("\r\n", with: "\n") : pem
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? start
        let normalized = String(text[start..<end])
        guard normalized.contains("-----BEGIN") else {
            throw ProviderKeyError(
                "\(origin) is not a PEM key file (no \"-----BEGIN\" line); expected the .p8 file from the Apple developer account",
                exitStatus: .configuration)
        }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: normalized) {
            self.init(
                privateKey: key,
                fingerprint: Self.fingerprint(pem: normalized) ?? Self.fingerprint(der: key.derRepresentation))
            return
        }
        if (try? P384.Signing.PrivateKey(pemRepresentation: normalized)) != nil
            || (try? P521.Signing.PrivateKey(pemRepresentation: normalized)) != nil
        {
            throw ProviderKeyError(
                "\(origin) holds an EC key on another curve; APNs needs a P-256 (prime256v1) key",
                exitStatus: .configuration)
        }
        if normalized.contains("PUBLIC KEY-----") {
            throw ProviderKeyError(
                "\(origin) holds a public key; signing needs the private key (the .p8 file)", exitStatus: .configuration
            )
        }
        if normalized.contains("ENCRYPTED") {
            throw ProviderKeyError(
                "\(origin) is encrypted; APNs keys are used unencrypted (decrypt it with openssl pkcs8)",
                exitStatus: .configuration)
        }
        if Self.holdsRSAKey(normalized) {
            throw ProviderKeyError(
                "\(origin) holds an RSA key; APNs provider tokens are signed with the P-256 (ES256) key Apple "
                    + "hands out as AuthKey_<key id>.p8",
                exitStatus: .configuration)
        }
        throw ProviderKeyError(
            "\(origin) is not a P-256 private key (expected PEM \"BEGIN PRIVATE KEY\" or \"BEGIN EC PRIVATE KEY\")",
            exitStatus: .configuration)
    }

    /// Reads and parses the key file at `path`.
    /// - Parameter source: the setting that named the path, for messages.
    /// - Throws: `ProviderKeyError`: exit 66 when missing or unreadable, 78 when not a P-256 key.
    package static func load(path: String, source: SettingSource) throws(ProviderKeyError) -> ProviderKey {
        let origin = origin(path: path, source: source)
        return try ProviderKey(pem: try readPEM(path: path, origin: origin), origin: origin)
    }

    /// How messages name the key file at `path`, named by the setting `source`.
    package static func origin(path: String, source: SettingSource) -> String {
        "key file \(path) (from \(source))"
    }

    /// The fingerprint of the first PEM block in `text`: its base64 body decoded, hashed, without
    /// parsing the key. `nil` when `text` has no such block.
    package static func fingerprint(pem text: String) -> String? {
        guard let begin = text.firstRange(of: "-----BEGIN "),
            let bodyStart = text[begin.upperBound...].firstIndex(where: \.isNewline),
            let end = text[bodyStart...].firstRange(of: "-----END ")
        else { return nil }
        let body = String(text[bodyStart..<end.lowerBound].filter { !$0.isWhitespace })
        guard !body.isEmpty, let der = Data(base64Encoded: body) else { return nil }
        return fingerprint(der: der)
    }

    private static func fingerprint(der: some DataProtocol) -> String {
        SHA256.hash(data: der).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The text of the PEM file at `path`, named `origin` in errors.
    /// - Throws: `ProviderKeyError`: exit 66 when missing or unreadable, 78 when not text.
    package static func readPEM(path: String, origin: String) throws(ProviderKeyError) -> String {
        let read: Data?
        do throws(FileSystemError) {
            // A .p8 key is about 250 bytes: a FIFO, a device or anything large is not one.
            read = try PosixFile.readRegularFile(path, limit: 64 * 1024)
        } catch {
            throw ProviderKeyError("cannot read \(origin): \(error.reason)", exitStatus: .noInput)
        }
        guard let data = read else { throw ProviderKeyError("\(origin) does not exist", exitStatus: .noInput) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ProviderKeyError("\(origin) is not text; expected a PEM file", exitStatus: .configuration)
        }
        return text
    }
}
