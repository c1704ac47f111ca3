#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// `apns-jwt check --online` for FCM: a fresh access token from the service account's token
/// endpoint, then a message FCM only validates, and what the two answers say, as one finding.
///
/// The access token is asked for anew and kept in memory only (the token cache of sends is neither
/// read nor written), so the probe proves the key and the clock as they are now. The message goes
/// to a topic, not a device, with `validate_only`: FCM checks the access token, the project and the
/// account's permission to send for it, and the message, and delivers nothing. A topic needs no
/// APNs key uploaded to Firebase, so `THIRD_PARTY_AUTH_ERROR` is not expected. Reaching both proves
/// DNS, the connection, the proxy and TLS (the CA) to the token endpoint and to FCM. No finding
/// shows the access token, the assertion or the key.
package enum FCMCredentialProbe {
    /// The name of the report's line.
    package static let setting = "fcm (online)"
    /// The topic the message is addressed to; nothing is delivered to it.
    package static let topic = "pushkit-free-check"
    /// The body sent: a notification to `topic`, to be validated only.
    package static let body = Data(
        #"{"message":{"notification":{"title":"check"},"topic":"pushkit-free-check"},"validate_only":true}"#.utf8)

    /// The token request of `account`: an assertion signed at `now`, posted to its `token_uri`.
    /// - Throws: `FCMAuthenticationError` when the key cannot sign, which a parsed key never causes.
    package static func tokenRequest(
        account: FCMServiceAccount, now: Date
    ) throws(FCMAuthenticationError) -> HTTP2Request {
        let assertion = try FCMAssertion(account: account, now: now)
        return FCMAccessTokenRequest(account: account, assertion: assertion).http2Request(tag: 0)
    }

    /// The `validate_only` message for the project `projectID` at the FCM origin `baseURL`,
    /// authorised by `accessToken`.
    package static func messageRequest(baseURL: String, projectID: String, accessToken: String) -> HTTP2Request {
        HTTP2Request(
            url: FCMMessage.url(baseURL: baseURL, projectID: projectID),
            headers: FCMMessage.headers(accessToken: accessToken), body: body, tag: 1)
    }

    /// Runs the probe: `tokenRequest` through `perform`, then, with the access token it gives, the
    /// message; the finding says what the first answer that is not a success means.
    /// - Parameters:
    ///   - account: the account, as messages name it (`FCMServiceAccount.description`).
    ///   - projectID: the project the message is sent for.
    ///   - fcmURL: the FCM origin (`fcm_url`), the line's value.
    ///   - now: the clock, read when the token endpoint has answered.
    ///   - perform: sends one request and returns its answer or why there is none.
    package static func finding(
        tokenRequest: HTTP2Request, account: String, projectID: String, fcmURL: String, now: () -> Date,
        perform: (HTTP2Request) -> Result<HTTP2Answer, TransportFailure>
    ) -> DoctorFinding {
        func finding(_ severity: DoctorFinding.Severity, _ message: String) -> DoctorFinding {
            DoctorFinding(setting: setting, value: fcmURL, source: "", severity: severity, message: message)
        }
        let accessToken: FCMAccessToken
        switch perform(tokenRequest) {
        case .failure(let failure):
            return finding(.error, CredentialProbe.unanswered(failure, host: tokenRequest.url))
        case .success(let answer):
            do throws(FCMAuthenticationError) {
                accessToken = try FCMAccessToken(
                    answer: answer, receivedAt: now(), endpoint: tokenRequest.url, account: account)
            } catch {
                return finding(error.exitStatus == .temporaryFailure ? .warning : .error, error.message)
            }
        }
        let request = messageRequest(baseURL: fcmURL, projectID: projectID, accessToken: accessToken.token)
        switch perform(request) {
        case .failure(let failure):
            return finding(.error, CredentialProbe.unanswered(failure, host: fcmURL))
        case .success(let answer):
            let (severity, message) = judgement(
                of: FCMResponse(answer), account: account, projectID: projectID, tokenURL: tokenRequest.url,
                fcmURL: fcmURL)
            return finding(severity, message)
        }
    }

    /// What FCM's answer to the message says about the settings, and the fix.
    static func judgement(
        of response: FCMResponse, account: String, projectID: String, tokenURL: String, fcmURL: String
    ) -> (DoctorFinding.Severity, String) {
        let rejection: FCMRejection
        switch response {
        case .accepted:
            return (
                .ok,
                "the token endpoint gave \(account) an access token, and FCM accepted it and a validate_only "
                    + "message for project \(projectID): nothing was delivered"
            )
        case .rejected(let rejected):
            rejection = rejected
        }
        let said = rejection.description
        switch rejection.reason {
        case .permissionDenied:
            return (
                .error,
                "FCM refused \(account) for project \(projectID) (\(said)): project_id must name the Firebase "
                    + "project; give the account the Firebase Cloud Messaging API Admin role, and enable the FCM API "
                    + "for the project"
            )
        case .senderIDMismatch, .notFound:
            return (
                .error,
                "FCM refused project \(projectID) (\(said)): project_id in the service account must be the app's "
                    + "Firebase project (Project settings → General → Project ID)"
            )
        case .unauthenticated:
            return (
                .error,
                "FCM refused the access token the token endpoint had just given (\(said)): token_uri \(tokenURL) "
                    + "and fcm_url \(fcmURL) must belong together (Google's both, or the emulator's both)"
            )
        case .thirdPartyAuthError:
            return (
                .error,
                "FCM answered \(said), which a topic should not cause: Apple refused the APNs key uploaded to "
                    + "Firebase (Project settings → Cloud Messaging → Apple app configuration)"
            )
        case .invalidArgument:
            return (.error, "FCM refused the probe message (\(said))")
        default:
            if case .retry = rejection.outcome {
                return (.warning, "FCM is busy or unavailable (\(said)); try again in a few minutes")
            }
            return (.error, "FCM answered \(said) to the probe")
        }
    }
}
