#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request that trades an assertion for an access token: a form-encoded POST to the
/// account's `token_uri` (RFC 7523 §2.1).
///
/// The body is `grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=<jwt>`;
/// the JWT is base64url and dots, all characters a form may carry as they are.
package struct FCMAccessTokenRequest: Sendable {
    /// The grant type, percent-encoded as the form carries it.
    package static let encodedGrantType = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

    /// The token endpoint (`token_uri`).
    package let url: String
    /// Request headers, names lowercase.
    package let headers: [(name: String, value: String)]
    /// The form body.
    package let body: Data

    /// The request for `assertion`, signed for `account`.
    package init(account: FCMServiceAccount, assertion: FCMAssertion) {
        url = account.tokenURI
        headers = [("content-type", "application/x-www-form-urlencoded"), ("accept", "application/json")]
        body = Data("grant_type=\(Self.encodedGrantType)&assertion=\(assertion.compact)".utf8)
    }

    /// The request for the transport, tagged `tag`.
    package func http2Request(tag: Int) -> HTTP2Request {
        HTTP2Request(url: url, headers: headers, body: body, tag: tag)
    }
}
