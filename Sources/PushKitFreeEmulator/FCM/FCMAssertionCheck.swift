#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras
import PushKitFreeCore

/// Judges the JWT assertion of an OAuth 2.0 JWT-bearer grant (RFC 7523) as Google's token endpoint
/// does for a service account: an RS256 signature by the account's key, `iss` the account's
/// email, a `scope` that includes Firebase Cloud Messaging, `aud` the token URI (or Google's token
/// endpoint, which Google's own libraries name whatever the file's `token_uri`), and a lifetime of
/// at most an hour that has begun and not ended.
package struct FCMAssertionCheck: Sendable {
    /// The scope `messages:send` needs.
    package static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The audiences Google's token endpoint answers to besides the file's `token_uri`: google-auth
    /// always signs `https://oauth2.googleapis.com/token`, older clients the v4 endpoint.
    package static let googleAudiences: Set<String> = [
        "https://oauth2.googleapis.com/token", "https://www.googleapis.com/oauth2/v4/token",
    ]
    /// How far in the future `iat` may be (clock skew), in seconds.
    package static let allowedSkew: TimeInterval = 60
    /// The longest lifetime Google grants an assertion, in seconds.
    package static let maximumLifetime: TimeInterval = 3600

    /// Why an assertion was refused: the OAuth `error` and Google's `error_description`.
    package struct Refusal: Error, Sendable, Equatable {
        /// `invalid_grant`, `invalid_scope` or `invalid_request`.
        package var error: String
        /// Google's words.
        package var description: String

        /// A refusal with the OAuth `error` and Google's `error_description`.
        package init(error: String, description: String) {
            self.error = error
            self.description = description
        }
    }

    /// What an accepted assertion said.
    package struct Claims: Sendable, Equatable {
        /// `iss`.
        package var issuer: String
        /// `scope`, split at spaces.
        package var scopes: [String]
    }

    /// The account whose key signs assertions.
    package let account: EmulatorServiceAccount
    /// The expected `aud`.
    package let tokenURI: String

    /// A check against `account`'s key for assertions addressed to `tokenURI`.
    package init(account: EmulatorServiceAccount, tokenURI: String) {
        self.account = account
        self.tokenURI = tokenURI
    }

    /// Verifies `assertion` at `now`.
    package func check(_ assertion: String, now: Date) -> Result<Claims, Refusal> {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URLDecoded(parts[0]),
            let payloadBytes = Self.base64URLDecoded(parts[1]), let signature = Self.base64URLDecoded(parts[2]),
            let header = (try? JSONValue.parse(headerBytes))?.objectValue,
            let payload = (try? JSONValue.parse(payloadBytes))?.objectValue
        else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT: malformed assertion."))
        }
        guard header["alg"]?.stringValue == "RS256" else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT: unsupported algorithm."))
        }
        guard let issuer = payload["iss"]?.stringValue, issuer == account.clientEmail else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid grant: account not found"))
        }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        if let keyID = header["kid"], keyID.stringValue != account.privateKeyID {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT Signature."))
        }
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT Signature."))
        }
        guard let audience = payload["aud"]?.stringValue,
            audience == tokenURI || Self.googleAudiences.contains(audience)
        else {
            return .failure(
                Refusal(
                    error: "invalid_grant",
                    description: "Invalid JWT: Failed audience check. The right audience is \(tokenURI)"))
        }
        let lifetimeProblem =
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
            + "Check your iat and exp values in the JWT claim."
        guard let issuedAt = payload["iat"]?.numberValue, let expires = payload["exp"]?.numberValue,
            issuedAt <= now.timeIntervalSince1970 + Self.allowedSkew, expires > now.timeIntervalSince1970,
            expires > issuedAt, expires - issuedAt <= Self.maximumLifetime
        else {
            return .failure(Refusal(error: "invalid_grant", description: lifetimeProblem))
        }
        let scopes = (payload["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        guard scopes.contains(Self.messagingScope) else {
            return .failure(
                Refusal(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided."))
        }
        return .success(Claims(issuer: issuer, scopes: scopes))
    }

    /// The bytes of unpadded (or padded) base64url text; `nil` when it is not base64url.
    static func base64URLDecoded(_ text: Substring) -> Data? {
        if text.contains("+") || text.contains("/") || text.contains("=") { return nil }
        var standard = String(text).replacing("-", with: "+").replacing("_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }
}
