#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// `apns-jwt check --online`: one request that has APNs judge the credentials without delivering
/// anything, and what its answer says, as a doctor finding.
///
/// The request is a background notification (priority 5, `apns-expiration: 0`, no alert) to a
/// device token of 32 zero bytes, which APNs never issues. APNs checks the provider token before
/// the device token, so its answer tells the two apart: `403 InvalidProviderToken` (or another
/// 403) refuses the credentials; `400 BadDeviceToken` proves they were accepted, and that the
/// topic passed, with nothing delivered. Reaching it at all proves DNS, the connection, the proxy,
/// TLS (the CA) and HTTP/2. (A local emulator, which knows no real devices, answers 200.)
package enum CredentialProbe {
    /// The probe's device token: 32 zero bytes in hex.
    package static let deviceToken = String(repeating: "0", count: 64)
    /// How long the probe may take, connection included.
    package static let timeout: Duration = .seconds(15)

    /// The probe request to the APNs origin `baseURL`, signed with `token`, for `topic`.
    package static func request(baseURL: String, token: ProviderToken, topic: String) -> HTTP2Request {
        HTTP2Request(
            url: baseURL + "/3/device/" + deviceToken,
            headers: [
                ("authorization", "bearer " + token.compact), ("apns-topic", topic),
                ("apns-push-type", "background"), ("apns-priority", "5"), ("apns-expiration", "0"),
                ("content-type", "application/json"),
            ],
            body: Data(#"{"aps":{"content-available":1}}"#.utf8), tag: 0)
    }

    /// Why a probe to `host` got no answer, and where to look: the CA setting for TLS, the name, a
    /// firewall or the proxy for a connection refused.
    package static func unanswered(_ failure: TransportFailure, host: String) -> String {
        switch failure.kind {
        case .tls:
            "TLS with \(host) failed: \(failure.message); a server with a CA of its own (the emulator, a "
                + "proxy that inspects TLS) needs --cacert or APNS_CA_FILE"
        case .connect:
            "cannot reach \(host): \(failure.message) (the name, a firewall, or the proxy above)"
        case .timeout:
            "no answer from \(host) within \(Int(timeout.components.seconds)) s"
        case .connectionLost, .interrupted, .other:
            "the request to \(host) failed: \(failure.message)"
        }
    }

    /// The finding for the probe's outcome, on the `apns` line of the report.
    /// - Parameters:
    ///   - host: the origin asked, as the report shows it.
    ///   - credentials: the key id and team id the token was signed for, named in the message.
    ///   - environment: the environment the origin serves.
    package static func finding(
        for outcome: Result<HTTP2Answer, TransportFailure>, host: String, keyID: String, teamID: String, topic: String,
        environment: APNsEnvironment
    ) -> DoctorFinding {
        func finding(_ severity: DoctorFinding.Severity, _ message: String) -> DoctorFinding {
            DoctorFinding(setting: "apns (online)", value: host, source: "", severity: severity, message: message)
        }
        let answer: HTTP2Answer
        switch outcome {
        case .failure(let failure):
            return finding(.error, unanswered(failure, host: host))
        case .success(let success):
            answer = success
        }
        let credentials = "key id \(keyID), team id \(teamID)"
        switch APNsResponse(answer) {
        case .accepted:
            return finding(.ok, "the credentials (\(credentials)) and topic were accepted: 200 to the probe")
        case .rejected(let rejection, _, _):
            let said = "\(rejection.status) \(rejection.reason.rawValue)"
            switch rejection.reason {
            case .badDeviceToken, .deviceTokenNotForTopic:
                return finding(
                    .ok,
                    "APNs accepted the provider token (\(credentials)) and topic: it answered \(said) to a probe for "
                        + "a device token that does not exist, so nothing was delivered")
            case .invalidProviderToken:
                return finding(
                    .error,
                    "APNs refused the provider token (\(said)): the key id, the team id and the .p8 must belong "
                        + "together (\(credentials)); compare them with the developer account's Keys page, and check "
                        + "the key was not revoked")
            case .expiredProviderToken:
                return finding(
                    .error, "APNs took the token for expired (\(said)): is this machine's clock right? (see clock)")
            case .badEnvironmentKeyIDInToken:
                return finding(
                    .error,
                    "the key is not enabled for \(environment.rawValue) (\(said)): make a key for "
                        + "\"Sandbox & Production\", or use the environment it was made for")
            case .topicDisallowed, .badTopic, .missingTopic:
                return finding(
                    .error, "APNs refused the topic \(topic) for this key (\(said)): the topic is the app's bundle id")
            case .tooManyProviderTokenUpdates, .tooManyRequests:
                return finding(.warning, "APNs asked to slow down (\(said)); try again in a few minutes")
            default:
                let severity: DoctorFinding.Severity = rejection.status >= 500 ? .warning : .error
                return finding(severity, "APNs answered \(said) to the probe")
            }
        }
    }
}
