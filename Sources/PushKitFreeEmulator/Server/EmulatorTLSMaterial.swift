#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import NIOSSL
import PushKitFreeCore
import X509

/// The emulator's TLS identity: a certificate chain, its key, and the file clients trust
/// (`--cacert`).
///
/// Without `--cert`, the emulator keeps a small private CA and a server certificate for
/// `localhost`, `127.0.0.1` and `::1` in `<state dir>/emulator/` and reuses them across runs, so a
/// client configured once with `ca_file` keeps working. They are made again when missing, expiring
/// within 30 days or not covering the listening host.
package struct EmulatorTLSMaterial: Sendable {
    /// PEM certificates, the server's first.
    package let certificateChainPEM: String
    /// The server key, PEM.
    package let privateKeyPEM: String
    /// What clients pass as `--cacert`: the generated CA, or the `--cert` file.
    package let caPath: String

    /// Material from PEM text already at hand.
    package init(certificateChainPEM: String, privateKeyPEM: String, caPath: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        self.caPath = caPath
    }

    /// Loads a user's certificate (`--cert`, PEM, server first) and key (`--cert-key`).
    /// - Throws: `EmulatorSetupError`: 66 when a file is missing, 78 when it is not PEM.
    package static func load(certificatePath: String, keyPath: String) throws(EmulatorSetupError) -> EmulatorTLSMaterial
    {
        let certificate = try readText(certificatePath, flag: "--cert")
        let key = try readText(keyPath, flag: "--cert-key")
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(Array(certificate.utf8)), !chain.isEmpty else {
            throw EmulatorSetupError("--cert \(certificatePath) holds no PEM certificate", exitStatus: .configuration)
        }
        guard (try? NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem)) != nil else {
            throw EmulatorSetupError("--cert-key \(keyPath) is not a PEM private key", exitStatus: .configuration)
        }
        return EmulatorTLSMaterial(certificateChainPEM: certificate, privateKeyPEM: key, caPath: certificatePath)
    }

    /// The names a generated server certificate covers when listening on `host`.
    package static func names(forHost host: String) -> [String] {
        var names = ["localhost", "127.0.0.1", "::1"]
        if !["0.0.0.0", "::", ""].contains(host), !names.contains(host) { names.append(host) }
        return names
    }

    /// Loads the generated CA and server certificate from `directory`, making what is missing or
    /// stale. Falls back to a new private temporary directory when `directory` is unusable.
    /// - Parameter temporaryDirectory: `TMPDIR` as the program read it (`nil`: not set), where the
    ///   fallback goes when it is an absolute path, else `/tmp`.
    /// - Returns: the material and a warning when the fallback was used.
    package static func loadOrCreate(
        in directory: String, host: String, now: Date = Date(), temporaryDirectory: String? = nil
    ) throws -> (material: EmulatorTLSMaterial, warning: String?) {
        do {
            try PosixFile.createPrivateDirectory(directory)
            let material = try FileLock.withExclusiveLock(at: directory + "/.lock") {
                try loadOrCreateLocked(in: directory, names: names(forHost: host), now: now)
            }
            return (material, nil)
        } catch {
            var template = Array((scratchDirectory(temporaryDirectory) + "/apns-emulator-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw error }
            let fallback = String(cString: made)
            let material = try loadOrCreateLocked(in: fallback, names: names(forHost: host), now: now)
            return (material, "cannot keep the certificate in \(directory) (\(error)); using \(fallback) for this run")
        }
    }

    private static func loadOrCreateLocked(
        in directory: String, names: [String], now: Date
    ) throws -> EmulatorTLSMaterial {
        let caPath = directory + "/ca.pem", caKeyPath = directory + "/ca-key.pem"
        let serverPath = directory + "/server.pem", serverKeyPath = directory + "/server-key.pem"
        let margin: TimeInterval = 30 * 24 * 3600

        var authority: (certificate: Certificate, key: P256.Signing.PrivateKey)?
        if let pem = try? PosixFile.readIfPresent(caPath).map({ String(decoding: $0, as: UTF8.self) }),
            let keyPEM = try? PosixFile.readIfPresent(caKeyPath).map({ String(decoding: $0, as: UTF8.self) }),
            let certificate = try? Certificate(pemEncoded: pem),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: keyPEM),
            certificate.publicKey == Certificate.PublicKey(key.publicKey),
            certificate.notValidAfter > now.addingTimeInterval(margin)
        {
            authority = (certificate, key)
        }
        let authorityIsNew = authority == nil
        let (caCertificate, caKey) = try authority ?? makeAuthority(now: now)

        if !authorityIsNew,
            let pem = try? PosixFile.readIfPresent(serverPath).map({ String(decoding: $0, as: UTF8.self) }),
            let keyPEM = try? PosixFile.readIfPresent(serverKeyPath).map({ String(decoding: $0, as: UTF8.self) }),
            let certificate = try? Certificate(pemEncoded: pem),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: keyPEM),
            certificate.publicKey == Certificate.PublicKey(key.publicKey),
            certificate.notValidAfter > now.addingTimeInterval(margin),
            caCertificate.publicKey.isValidSignature(certificate.signature, for: certificate),
            covers(certificate, names: names)
        {
            return EmulatorTLSMaterial(certificateChainPEM: pem, privateKeyPEM: keyPEM, caPath: caPath)
        }

        let serverKey = P256.Signing.PrivateKey()
        let server = try makeServerCertificate(
            key: serverKey, authority: caCertificate, authorityKey: caKey, names: names, now: now)
        let serverPEM = try server.serializeAsPEM().pemString + "\n"
        if authorityIsNew {
            try PosixFile.replaceAtomically(caKeyPath, with: Data(caKey.pemRepresentation.utf8), mode: 0o600)
            try PosixFile.replaceAtomically(
                caPath, with: Data((try caCertificate.serializeAsPEM().pemString + "\n").utf8), mode: 0o644)
        }
        try PosixFile.replaceAtomically(serverKeyPath, with: Data(serverKey.pemRepresentation.utf8), mode: 0o600)
        try PosixFile.replaceAtomically(serverPath, with: Data(serverPEM.utf8), mode: 0o644)
        return EmulatorTLSMaterial(
            certificateChainPEM: serverPEM, privateKeyPEM: serverKey.pemRepresentation, caPath: caPath)
    }

    /// How far before its making a certificate is valid from: a week, so a client whose clock is
    /// behind (by hours, as after a suspend) meets APNs' answer about its provider token
    /// (`ExpiredProviderToken`), as it would with Apple, rather than a TLS failure.
    static let backdating: TimeInterval = 7 * 24 * 3600

    private static func makeAuthority(now: Date) throws -> (Certificate, P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("pushkit-free")
            CommonName("apns-emulator local CA")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-Self.backdating),
            notValidAfter: now.addingTimeInterval(10 * 365 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return (certificate, key)
    }

    private static func makeServerCertificate(
        key: P256.Signing.PrivateKey, authority: Certificate, authorityKey: P256.Signing.PrivateKey, names: [String],
        now: Date
    ) throws -> Certificate {
        let subject = try DistinguishedName {
            OrganizationName("pushkit-free")
            CommonName("localhost")
        }
        let alternativeNames: [GeneralName] = names.map { name in
            if let address = ipAddressBytes(name) {
                return .ipAddress(.init(contentBytes: ArraySlice(address)))
            }
            return .dnsName(name)
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-Self.backdating),
            notValidAfter: now.addingTimeInterval(397 * 24 * 3600),
            issuer: authority.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: authority.publicKey).keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey)
        )
    }

    private static func covers(_ certificate: Certificate, names: [String]) -> Bool {
        guard let alternativeNames = try? certificate.extensions.subjectAlternativeNames else { return false }
        return names.allSatisfy { name in
            if let address = ipAddressBytes(name) {
                return alternativeNames.contains(.ipAddress(.init(contentBytes: ArraySlice(address))))
            }
            return alternativeNames.contains(.dnsName(name))
        }
    }

    /// The bytes of an IPv4 or IPv6 address literal; `nil` for a host name.
    static func ipAddressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// `tmpdir` (`TMPDIR`) when it is an absolute path, else `/tmp`.
    private static func scratchDirectory(_ tmpdir: String?) -> String {
        guard let text = tmpdir, text.hasPrefix("/") else { return "/tmp" }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    private static func readText(_ path: String, flag: String) throws(EmulatorSetupError) -> String {
        do {
            // A certificate chain or a key is a few kilobytes: 1 MiB is room for any.
            return String(decoding: try InputFile.read(path, named: "\(flag) \(path)", limit: 1 << 20), as: UTF8.self)
        } catch {
            throw EmulatorSetupError(error.message, exitStatus: error.exitStatus)
        }
    }
}
