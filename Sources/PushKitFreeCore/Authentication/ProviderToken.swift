#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// An APNs provider authentication token: a JWT signed with ES256.
///
/// Header `{"alg":"ES256","kid":KEY_ID}`, claims `{"iss":TEAM_ID,"iat":SECONDS}`, each part base64url
/// without padding, and the signature the raw 64-byte r‖s of ECDSA P-256 over SHA-256 (JWS form,
/// never DER). APNs rejects a token older than an hour and throttles replacing one more often than
/// every 20 minutes, so tokens are reused through `ProviderTokenCache`.
package struct ProviderToken: Sendable, Equatable {
    /// The compact JWT, `header.claims.signature`.
    package let compact: String
    /// The `iat` claim: when the token was issued, in whole seconds since 1970.
    package let issuedAt: Int

    /// A token from its compact JWT and its `iat`, without checking that they agree (e.g. read back from the cache).
    package init(compact: String, issuedAt: Int) {
        self.compact = compact
        self.issuedAt = issuedAt
    }

    /// Signs a new token.
    /// - Parameters:
    ///   - keyID: the 10-character key id (`kid`).
    ///   - teamID: the 10-character team id (`iss`).
    ///   - issuedAt: seconds since 1970 (`iat`).
    package static func sign(key: ProviderKey, keyID: String, teamID: String, issuedAt: Int) throws -> ProviderToken {
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try key.privateKey.signature(for: Data(signingInput.utf8))
        return ProviderToken(
            compact: signingInput + "." + Base64URL.encode(signature.rawRepresentation), issuedAt: issuedAt)
    }

    /// Age in seconds at `now`; negative when `iat` lies in the future (the clock went back).
    package func age(at now: Date) -> Int {
        Int(now.timeIntervalSince1970.rounded(.down)) - issuedAt
    }
}

/// A provider token taken apart, for `apns-jwt decode` and for servers that check tokens.
package struct DecodedProviderToken: Sendable {
    /// The decoded header object, e.g. `alg` and `kid`.
    package let header: [String: JSONValue]
    /// The decoded claims object, e.g. `iss` and `iat`.
    package let claims: [String: JSONValue]
    /// The signature bytes (64 for a proper ES256 JWS signature).
    package let signature: Data
    /// `header.claims` as it was signed.
    package let signingInput: String

    /// The `alg` header (APNs wants `ES256`); `nil` when missing or not a string.
    package var algorithm: String? { header["alg"]?.stringValue }
    /// The `kid` header, the key id; `nil` when missing or not a string.
    package var keyID: String? { header["kid"]?.stringValue }
    /// The `iss` claim, the team id; `nil` when missing or not a string.
    package var issuer: String? { claims["iss"]?.stringValue }
    /// The `iat` claim in seconds since 1970; `nil` when missing or not a whole number (a string of
    /// digits is `issuedAtFromNumericString`).
    package var issuedAt: Int? { claims["iat"]?.integerValue }
    /// `iat` written as a string of decimal digits (`"1795428503"`), as some client libraries sign
    /// it; `nil` when it is a number or anything else.
    package var issuedAtFromNumericString: Int? {
        guard let text = claims["iat"]?.stringValue, !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }

    /// Splits and decodes a compact JWT without checking its signature.
    /// - Throws: `ProviderTokenFormatError` naming the part that is malformed.
    package init(compact: String) throws(ProviderTokenFormatError) {
        let trimmed = compact.lowercased().hasPrefix("bearer ") ? String(compact.dropFirst(7)) : compact
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw ProviderTokenFormatError("a provider token has 3 dot-separated parts, this one has \(parts.count)")
        }
        func object(_ part: Substring, _ name: String) throws(ProviderTokenFormatError) -> [String: JSONValue] {
            guard let data = Base64URL.decode(part) else {
                throw ProviderTokenFormatError("the \(name) is not base64url")
            }
            guard let value = try? JSONValue.parse(data), let object = value.objectValue else {
                throw ProviderTokenFormatError("the \(name) is not a JSON object")
            }
            return object
        }
        header = try object(parts[0], "header")
        claims = try object(parts[1], "claims")
        guard let signature = Base64URL.decode(parts[2]) else {
            throw ProviderTokenFormatError("the signature is not base64url")
        }
        self.signature = signature
        signingInput = parts[0] + "." + parts[1]
    }

    /// Whether the signature is a valid ES256 signature of `signingInput` by `publicKey`: the
    /// 64-byte raw r‖s a JWS holds, or, with `acceptingDER`, the DER encoding `openssl dgst -sign`
    /// makes (Apple's own command-line recipe signs so, and APNs accepts it).
    package func hasValidSignature(from publicKey: P256.Signing.PublicKey, acceptingDER: Bool = false) -> Bool {
        let ecdsa: P256.Signing.ECDSASignature
        if signature.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature) {
            ecdsa = raw
        } else if acceptingDER, let der = derSignature {
            ecdsa = der
        } else {
            return false
        }
        return publicKey.isValidSignature(ecdsa, for: Data(signingInput.utf8))
    }

    /// The signature read as DER (an ASN.1 sequence of r and s), when it is one and not 64 bytes.
    package var derSignature: P256.Signing.ECDSASignature? {
        guard signature.count != 64 else { return nil }
        return try? P256.Signing.ECDSASignature(derRepresentation: signature)
    }
}

/// A provider token that cannot be taken apart.
package struct ProviderTokenFormatError: PushKitError {
    /// What is malformed, e.g. "the signature is not base64url".
    package let message: String
    /// Always 65: a malformed token is bad input.
    package var exitStatus: ExitStatus { .dataError }
    /// An error with `message`.
    package init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}
