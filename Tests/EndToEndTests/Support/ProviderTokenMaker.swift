import Foundation
import PushKitFreeCore

/// Signs provider tokens with any key, key id, team id and `iat`, for the cases `apns-jwt` will not
/// make (expired, another key, DER signatures). Uses the core's `ProviderToken.sign`.
enum ProviderTokenMaker {
    static func sign(
        keyPath: String, keyID: String = ProviderSetup.keyID, teamID: String = ProviderSetup.teamID,
        issuedAt: Int = Int(Date().timeIntervalSince1970)
    ) throws -> String {
        let key = try ProviderKey.load(path: keyPath, source: .flag("test"))
        return try ProviderToken.sign(key: key, keyID: keyID, teamID: teamID, issuedAt: issuedAt).compact
    }

    /// A token whose claims are `claims` exactly as written (shapes other clients sign, such as an
    /// `iat` written as a string), signed by the key at `keyPath` for `keyID`.
    static func sign(keyPath: String, keyID: String = ProviderSetup.keyID, claims: String) throws -> String {
        let key = try ProviderKey.load(path: keyPath, source: .flag("test"))
        let signingInput =
            Base64URL.encode(Data(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8)) + "."
            + Base64URL.encode(Data(claims.utf8))
        return signingInput + "."
            + Base64URL.encode(try key.privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation)
    }
}
