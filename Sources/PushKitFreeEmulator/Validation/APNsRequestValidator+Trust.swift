#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import PushKitFreeCore

extension APNsRequestValidator.Trust {
    /// What a server trusts according to the shared configuration: the provider key's public half
    /// (from `publicKeyPath` when given, else derived from the configured `.p8`), the key id, the
    /// team id, and the topic as the bundle id (optional).
    /// - Throws: `ProviderKeyError` (66 missing file, 78 unusable key) or `ConfigurationError` (78).
    package static func load(
        from configuration: Configuration, publicKeyPath: String?
    ) throws -> APNsRequestValidator.Trust {
        let publicKey: P256.Signing.PublicKey
        if let publicKeyPath {
            publicKey = try loadPublicKey(path: publicKeyPath)
        } else if let keyPath = configuration.keyPath {
            publicKey = try ProviderKey.load(path: keyPath.value, source: keyPath.source).privateKey.publicKey
        } else {
            throw ConfigurationError(
                "no provider key to trust: set --key-path (the .p8), --public-key, APNS_KEY_PATH or key_path in \(configuration.file.path)"
            )
        }
        let (keyID, teamID) = try ProviderCredentials.identifiers(from: configuration)
        return APNsRequestValidator.Trust(
            publicKey: publicKey, keyID: keyID, teamID: teamID, bundleID: configuration.topic?.value)
    }

    /// Reads a P-256 public key (PEM `BEGIN PUBLIC KEY`); a private key file (`.p8`) is accepted too
    /// and its public half used.
    /// - Parameter origin: names the file in errors, e.g. `--trust-key ABC=path`.
    package static func loadPublicKey(
        path: String, origin: String? = nil
    ) throws(ProviderKeyError) -> P256.Signing.PublicKey {
        let origin = origin ?? "--public-key \(path)"
        let text = try ProviderKey.readPEM(path: path, origin: origin)
        if let key = try? P256.Signing.PublicKey(pemRepresentation: text) { return key }
        if text.contains("PRIVATE KEY-----") {
            return try ProviderKey(pem: text, origin: origin).privateKey.publicKey
        }
        throw ProviderKeyError(
            "\(origin) is not a P-256 public key (expected PEM \"BEGIN PUBLIC KEY\")", exitStatus: .configuration)
    }
}
