#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth 2.0 access token for FCM and when it stops being valid.
package struct FCMAccessToken: Sendable, Equatable {
    /// The bearer token, sent as `Authorization: Bearer <token>`.
    package let token: String
    /// When the token endpoint says it expires.
    package let expiresAt: Date

    /// A token and its expiry.
    package init(token: String, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }

    /// Whether the token is still good at `now` for at least `margin` seconds more (a send takes a
    /// while, and clocks differ).
    package func isUsable(at now: Date, margin: TimeInterval = 60) -> Bool {
        now.addingTimeInterval(margin) < expiresAt
    }

    /// Reads the token endpoint's answer, received at `receivedAt`.
    ///
    /// 200 with `{"access_token", "expires_in", "token_type": "Bearer"}` is a token expiring
    /// `expires_in` seconds after `receivedAt`. An OAuth error (`{"error", "error_description"}`)
    /// or anything else is an `FCMAuthenticationError`: 78 for a 4xx (the account, its key or the
    /// clock must change), 75 for a 429 or 5xx (asking later may work), 69 otherwise.
    /// - Parameters:
    ///   - endpoint: the token endpoint, for messages.
    ///   - account: the account that asked, for messages.
    package init(
        answer: HTTP2Answer, receivedAt: Date, endpoint: String, account: String
    ) throws(FCMAuthenticationError) {
        let json = try? JSONValue.parse(answer.body)
        guard answer.status == 200 else {
            let exitStatus: ExitStatus =
                answer.status == 429 || answer.status >= 500
                ? .temporaryFailure : (400..<500).contains(answer.status) ? .configuration : .unavailable
            var message = "the token endpoint \(endpoint) refused \(account) with \(answer.status)"
            if let error = json?["error"]?.stringValue {
                message += ": " + APNsResponse.escapingControlCharacters(error)
                if let detail = json?["error_description"]?.stringValue, !detail.isEmpty {
                    message += " (\(APNsResponse.escapingControlCharacters(detail)))"
                }
                if error == "invalid_grant" {
                    message +=
                        "; is this machine's clock right, and is the key still enabled in the Google Cloud console?"
                }
            }
            throw FCMAuthenticationError(message, exitStatus: exitStatus)
        }
        guard let token = json?["access_token"]?.stringValue, !token.isEmpty,
            !HeaderValue.hasControlCharacter(token)
        else {
            throw FCMAuthenticationError(
                "the token endpoint \(endpoint) answered 200 without an \"access_token\"", exitStatus: .unavailable)
        }
        if let type = json?["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw FCMAuthenticationError(
                "the token endpoint \(endpoint) gave a token of type \"\(APNsResponse.escapingControlCharacters(type))\"; "
                    + "FCM takes Bearer tokens",
                exitStatus: .unavailable)
        }
        guard let lifetime = json?["expires_in"]?.numberValue, lifetime > 0 else {
            throw FCMAuthenticationError(
                "the token endpoint \(endpoint) answered without a positive \"expires_in\"", exitStatus: .unavailable)
        }
        self.init(token: token, expiresAt: receivedAt.addingTimeInterval(lifetime))
    }
}
