#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras

/// The signed JWT a service account presents to Google's token endpoint for an access token: the
/// OAuth 2.0 JWT-bearer grant (RFC 7523).
///
/// Header `{"alg":"RS256","kid":<private_key_id>,"typ":"JWT"}`; claims `iss` = the account's
/// e-mail, `scope` = FCM's, `aud` = the account's `token_uri`, `iat` and `exp` in UNIX seconds,
/// `exp` at most an hour after `iat` (Google refuses longer). RS256 is RSASSA-PKCS1-v1_5 over
/// SHA-256, signed by swift-crypto (BoringSSL). JSON members are written with sorted keys.
package struct FCMAssertion: Sendable {
    /// The OAuth scope that lets an access token send FCM messages.
    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The longest lifetime Google accepts: an hour.
    package static let maximumLifetime = 3600

    /// The compact JWT: `header.claims.signature`, each base64url without padding.
    package let compact: String
    /// When it was issued (`iat`), in UNIX seconds.
    package let issuedAt: Int
    /// When it expires (`exp`), in UNIX seconds.
    package let expiresAt: Int

    /// Signs an assertion for `account`, issued at `now`.
    /// - Parameter lifetime: seconds until `exp`, at most `maximumLifetime` (longer is cut to it).
    /// - Throws: `FCMAuthenticationError` (78) when the key cannot sign, which a parsed key never causes.
    package init(account: FCMServiceAccount, now: Date, lifetime: Int = maximumLifetime) throws(FCMAuthenticationError)
    {
        issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        expiresAt = issuedAt + max(1, min(lifetime, Self.maximumLifetime))
        let header: JSONValue = ["alg": "RS256", "kid": .string(account.privateKeyID), "typ": "JWT"]
        let claims: JSONValue = [
            "iss": .string(account.clientEmail), "scope": .string(Self.scope), "aud": .string(account.tokenURI),
            "iat": .number(Double(issuedAt)), "exp": .number(Double(expiresAt)),
        ]
        let signingInput = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(claims.serialized())
        let signature: _RSA.Signing.RSASignature
        do {
            signature = try account.privateKey.signature(
                for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        } catch {
            throw FCMAuthenticationError(
                "cannot sign the assertion of \(account): \(error)", exitStatus: .configuration)
        }
        compact = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
