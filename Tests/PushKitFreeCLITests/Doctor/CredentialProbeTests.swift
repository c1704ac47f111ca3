import Foundation
import PushKitFreeCLI
import PushKitFreeCore
import Testing

/// What `apns-jwt check --online` concludes from each answer APNs can give its probe.
@Suite("apns-jwt check --online: the probe's answers")
struct CredentialProbeTests {
    static func finding(_ outcome: Result<HTTP2Answer, TransportFailure>) -> DoctorFinding {
        CredentialProbe.finding(
            for: outcome, host: "https://api.push.apple.com", keyID: "ABCDE12345", teamID: "TEAM678901",
            topic: "com.example.app", environment: .production)
    }

    static func answer(_ status: Int, _ reason: String) -> Result<HTTP2Answer, TransportFailure> {
        .success(HTTP2Answer(status: status, headers: [:], body: Data(#"{"reason":"\#(reason)"}"#.utf8)))
    }

    @Test(
        "Apple's answers: BadDeviceToken proves the credentials; a 403 refuses them, each with its fix",
        arguments: [
            (400, "BadDeviceToken", DoctorFinding.Severity.ok, "nothing was delivered"),
            (400, "DeviceTokenNotForTopic", .ok, "accepted the provider token"),
            (403, "InvalidProviderToken", .error, "must belong together"),
            (403, "ExpiredProviderToken", .error, "clock"),
            (403, "BadEnvironmentKeyIdInToken", .error, "Sandbox & Production"),
            (400, "TopicDisallowed", .error, "refused the topic com.example.app"),
            (429, "TooManyProviderTokenUpdates", .warning, "slow down"),
            (503, "ServiceUnavailable", .warning, "503 ServiceUnavailable"),
        ])
    func answers(status: Int, reason: String, severity: DoctorFinding.Severity, mentions: String) {
        let finding = Self.finding(Self.answer(status, reason))
        #expect(finding.severity == severity, "\(finding.message)")
        #expect(finding.message.contains(mentions), "\(finding.message)")
    }

    @Test("no answer: TLS names the CA setting, a refused connection the host")
    func failures() {
        let tls = Self.finding(.failure(TransportFailure(kind: .tls, code: 60, message: "SSL certificate problem")))
        #expect(tls.severity == .error && tls.message.contains("APNS_CA_FILE"))
        let connect = Self.finding(.failure(TransportFailure(kind: .connect, code: 7, message: "refused")))
        #expect(connect.severity == .error && connect.message.contains("cannot reach https://api.push.apple.com"))
    }

    @Test("the probe is a background push at priority 5, not stored, to a token APNs never issues")
    func request() throws {
        let token = ProviderToken(compact: "h.c.s", issuedAt: 0)
        let request = CredentialProbe.request(baseURL: "https://api.push.apple.com", token: token, topic: "com.x")
        #expect(request.url == "https://api.push.apple.com/3/device/" + String(repeating: "0", count: 64))
        let headers = Dictionary(uniqueKeysWithValues: request.headers.map { ($0.name, $0.value) })
        #expect(headers["apns-push-type"] == "background" && headers["apns-priority"] == "5")
        #expect(headers["apns-expiration"] == "0" && headers["authorization"] == "bearer h.c.s")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
    }
}
