#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import PushKitFreeCore

/// What a server learns from a provider token: its decoded parts and whether it was signed, as APNs
/// requires, by the trusted key for the trusted key id and team.
///
/// The verdict on a token string never changes, so `ProviderTokenCheck.inspect` computes it once and
/// servers cache it; only the token's age is judged again on every request.
package struct ProviderTokenCheck: Sendable {
    /// The decoded header, when the token could be taken apart.
    package let header: [String: JSONValue]?
    /// The decoded claims, when the token could be taken apart.
    package let claims: [String: JSONValue]?
    /// `header` and `claims` as one compact JSON object, `{"header":{...},"claims":{...}}`, ready to
    /// record (the token itself is never recorded); `nil` when undecodable.
    package let recordJSON: String?
    /// The `iat` claim in seconds since 1970, when present and an integer.
    package let issuedAt: Int?
    /// The key id (`kid`) the token names.
    package let keyID: String?
    /// The team id (`iss`) the token names.
    package let teamID: String?
    /// Why the token is not acceptable regardless of its age; `nil` when it is.
    package let problem: String?
    /// Something accepted that a stricter reading would refuse (an `iat` written as a numeric
    /// string), for the request record's `detail`.
    package var note: String?

    /// Whether the token is well formed and correctly signed for the trusted key, key id and team.
    package var isAuthentic: Bool { problem == nil }

    /// Checks everything about `compact` except its age: the three parts decode, `alg` is ES256,
    /// `kid` and `iss` are the trusted ones, `iat` is an integer, and the signature is the ES256
    /// signature by `publicKey`.
    ///
    /// Two readings APNs accepts are accepted, each with a `note` saying so, and refused by its
    /// strict flag: an `iat` written as a string of digits (client libraries have signed it so for
    /// years; `strictIssuedAt`), and a DER-encoded signature instead of the JWS's 64-byte r‖s
    /// (what `openssl dgst -sha256 -sign` makes, as Apple's command-line recipe does; `strictSignature`).
    package static func inspect(
        _ compact: String, publicKey: P256.Signing.PublicKey, keyID trustedKeyID: String, teamID trustedTeamID: String,
        strictIssuedAt: Bool = false, strictSignature: Bool = false
    ) -> ProviderTokenCheck {
        inspect(
            compact, keys: [trustedKeyID: publicKey], teamID: trustedTeamID, strictIssuedAt: strictIssuedAt,
            strictSignature: strictSignature)
    }

    /// Checks `compact` as `inspect(_:publicKey:keyID:teamID:strictIssuedAt:strictSignature:)` does,
    /// against several keys of one team: `kid` must name one of `keys`, and the signature must
    /// verify with that key.
    package static func inspect(
        _ compact: String, keys: [String: P256.Signing.PublicKey], teamID trustedTeamID: String,
        strictIssuedAt: Bool = false, strictSignature: Bool = false
    ) -> ProviderTokenCheck {
        let decoded: DecodedProviderToken
        do {
            decoded = try DecodedProviderToken(compact: compact)
        } catch {
            return ProviderTokenCheck(
                header: nil, claims: nil, recordJSON: nil, issuedAt: nil, keyID: nil, teamID: nil,
                problem: error.message)
        }
        let recordJSON = JSONValue.object(["header": .object(decoded.header), "claims": .object(decoded.claims)])
            .serializedString()
        var problem: String?
        var note: String?
        var issuedAt = decoded.issuedAt
        if issuedAt == nil, let fromString = decoded.issuedAtFromNumericString {
            if strictIssuedAt {
                problem =
                    "iat is the string \(decoded.claims["iat"]?.serializedString() ?? ""), not a number (refused by --strict-iat; APNs accepts it)"
            } else {
                issuedAt = fromString
                note =
                    "iat is the string \(decoded.claims["iat"]?.serializedString() ?? ""), not a number; APNs accepts it (--strict-iat refuses it)"
            }
        }
        if problem != nil {
        } else if decoded.algorithm != "ES256" {
            problem = "alg is \(decoded.header["alg"]?.serializedString() ?? "missing"), not \"ES256\""
        } else if decoded.keyID.flatMap({ keys[$0] }) == nil {
            let kid = decoded.header["kid"]?.serializedString() ?? "missing"
            let trusted = keys.keys.sorted().map { "\"\($0)\"" }
            problem =
                trusted.count == 1
                ? "kid is \(kid), not the trusted key id \(trusted[0])"
                : "kid is \(kid), not one of the trusted key ids \(trusted.joined(separator: ", "))"
        } else if decoded.issuer != trustedTeamID {
            problem =
                "iss is \(decoded.claims["iss"]?.serializedString() ?? "missing"), not the trusted team id \"\(trustedTeamID)\""
        } else if issuedAt == nil {
            problem = "iat is \(decoded.claims["iat"]?.serializedString() ?? "missing"), not whole seconds since 1970"
        } else if decoded.signature.count != 64, decoded.derSignature == nil {
            problem = "the signature has \(decoded.signature.count) bytes; ES256 in a JWS is the 64-byte r‖s"
        } else if decoded.signature.count != 64, strictSignature {
            problem =
                "the signature is DER-encoded, not the JWS's 64-byte r‖s (refused by --strict-signature; APNs accepts it)"
        } else if let keyID = decoded.keyID, let publicKey = keys[keyID],
            !decoded.hasValidSignature(from: publicKey, acceptingDER: true)
        {
            problem = "the signature does not verify with the trusted public key"
        } else if decoded.signature.count != 64 {
            let der =
                "the signature is DER-encoded (as openssl dgst -sign makes it), not the JWS's 64-byte r‖s; "
                + "APNs accepts it (--strict-signature refuses it)"
            note = note.map { $0 + "; " + der } ?? der
        }
        return ProviderTokenCheck(
            header: decoded.header, claims: decoded.claims, recordJSON: recordJSON,
            issuedAt: issuedAt, keyID: decoded.keyID, teamID: decoded.issuer, problem: problem, note: note
        )
    }
}

extension ProviderTokenCheck {
    /// A check that failed before the token could be decoded.
    init(problem: String) {
        self.init(header: nil, claims: nil, recordJSON: nil, issuedAt: nil, keyID: nil, teamID: nil, problem: problem)
    }
}
