#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras
import PushKitFreeCore

/// The emulator's throw-away Google service account: an RSA 2048 key kept beside the emulator's
/// TLS files and reused across runs, and the service account JSON file clients read, shaped like
/// the one the Firebase console hands out (`type`, `project_id`, `private_key_id`, a PKCS#8
/// `private_key`, `client_email`, `client_id`, `token_uri`).
///
/// The `token_uri` is the emulator's own `/token` route, so a client that follows the file gets its
/// access token from the emulator, over the same TLS (and CA file) as the APNs routes.
package struct EmulatorServiceAccount: Sendable {
    /// The file name of the service account JSON in the emulator's directory.
    package static let fileName = "fcm-service-account.json"
    /// The file name of the RSA key (PKCS#8 PEM) in the emulator's directory.
    static let keyFileName = "fcm-key.pem"
    /// The project id used without `--fcm-project`.
    package static let defaultProjectID = "pushkit-emulator"

    /// The Firebase project the emulator plays.
    package let projectID: String
    /// `emulator@<project>.iam.gserviceaccount.com`, the JWT assertion's expected `iss`.
    package let clientEmail: String
    /// 40 hex digits derived from the public key, as the JWT header's `kid`.
    package let privateKeyID: String
    /// 21 digits derived from the public key.
    package let clientID: String
    /// The key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), as Google's files hold it.
    let privateKeyPEM: String
    /// What assertions are verified with.
    package let publicKey: _RSA.Signing.PublicKey

    /// An account for `projectID` with `privateKey`.
    package init(projectID: String, privateKey: _RSA.Signing.PrivateKey) {
        self.projectID = projectID
        clientEmail = "emulator@\(projectID).iam.gserviceaccount.com"
        privateKeyPEM = privateKey.pkcs8PEMRepresentation
        publicKey = privateKey.publicKey
        let digest = Array(SHA256.hash(data: publicKey.derRepresentation))
        privateKeyID = digest.prefix(20).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        clientID = "1" + String(number).leftPadded(to: 20)
    }

    /// Whether `text` can be a Google Cloud project id: 6 to 30 lowercase letters, digits and
    /// hyphens, starting with a letter and not ending with a hyphen.
    package static func isProjectID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (6...30).contains(bytes.count), let first = bytes.first, let last = bytes.last,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), last != UInt8(ascii: "-")
        else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-")
        }
    }

    /// Loads the key kept in `directory`, making (and keeping, mode 0600) a new one when it is
    /// missing or unreadable, so the emulator and `--print-env` agree on one account.
    package static func loadOrCreate(in directory: String, projectID: String) throws -> EmulatorServiceAccount {
        try PosixFile.createPrivateDirectory(directory)
        return try FileLock.withExclusiveLock(at: directory + "/.lock") { () throws -> EmulatorServiceAccount in
            let keyPath = directory + "/" + keyFileName
            if let pem = try? PosixFile.readIfPresent(keyPath).map({ String(decoding: $0, as: UTF8.self) }),
                let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem), key.keySizeInBits >= 2048
            {
                return EmulatorServiceAccount(projectID: projectID, privateKey: key)
            }
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            try PosixFile.replaceAtomically(keyPath, with: Data(key.pkcs8PEMRepresentation.utf8), mode: 0o600)
            return EmulatorServiceAccount(projectID: projectID, privateKey: key)
        }
    }

    /// The service account JSON whose `token_uri` is `tokenURI`.
    package func json(tokenURI: String) -> Data {
        let object: JSONValue = .object([
            "type": .string("service_account"),
            "project_id": .string(projectID),
            "private_key_id": .string(privateKeyID),
            "private_key": .string(privateKeyPEM),
            "client_email": .string(clientEmail),
            "client_id": .string(clientID),
            "auth_uri": .string("https://accounts.google.com/o/oauth2/auth"),
            "token_uri": .string(tokenURI),
            "universe_domain": .string("googleapis.com"),
        ])
        return object.serialized(pretty: true)
    }

    /// Writes the service account JSON to `path`, mode 0600 (it holds the private key).
    package func write(to path: String, tokenURI: String) throws {
        try PosixFile.replaceAtomically(path, with: json(tokenURI: tokenURI), mode: 0o600)
    }
}

extension String {
    /// The text with zeros in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
