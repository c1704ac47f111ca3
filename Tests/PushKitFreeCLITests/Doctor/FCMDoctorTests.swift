import Foundation
import PushKitFreeTestSupport
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore

/// What `apns-jwt check` says about the FCM settings offline: nothing when there are none, the
/// service account file's problems by field, and the URLs held to the APNs URLs' rule. A good
/// account (whose key the test would have to make) is checked end to end (CredentialCheckTests).
@Suite("apns-jwt check: the FCM settings")
struct FCMDoctorTests {
    func findings(_ env: [String: String]) throws -> [DoctorFinding] {
        let configuration = try Configuration(
            flags: ConfigurationFlags(), environment: ["HOME": "/nonexistent"].merging(env) { $1 },
            file: ConfigurationFile(path: "/nonexistent/config.json", exists: false, values: [:]))
        return ConfigurationDoctor(configuration: configuration).findings()
    }

    func finding(_ setting: String, _ findings: [DoctorFinding]) -> DoctorFinding? {
        findings.first { $0.setting == setting }
    }

    @Test("with no FCM setting the report has no FCM line, as before FCM")
    func absent() throws {
        let findings = try findings(["APNS_TOPIC": "com.example.app"])
        #expect(!findings.contains { $0.setting.hasPrefix("fcm") }, "\(findings.map(\.setting))")
        #expect(!DoctorReport.render(findings).contains("FCM"))
    }

    @Test("a service account file that is not there is an error naming the file and the variable")
    func missingFile() throws {
        let findings = try findings(["FCM_SERVICE_ACCOUNT": "/nonexistent/sa.json"])
        let account = try #require(finding("fcm account", findings))
        #expect(account.severity == .error && account.source == "env")
        #expect(
            account.message == "service account file /nonexistent/sa.json (from FCM_SERVICE_ACCOUNT) does not exist")
        #expect(finding("fcm url", findings)?.value == "https://fcm.googleapis.com")
        #expect(finding("fcm url", findings)?.source == "default")
    }

    @Test(
        "a missing or wrong field is named",
        arguments: [
            ("type", #""type" is empty"#), ("project_id", #"has no "project_id""#),
            ("client_email", #"has no "client_email""#), ("token_uri", #"has no "token_uri""#),
        ])
    func field(name: String, says: String) throws {
        var members: [String: String] = [
            "type": "service_account", "project_id": "demo-1", "client_email": "sa@demo-1.iam.gserviceaccount.com",
            "private_key_id": "0123abcd", "token_uri": "https://oauth2.googleapis.com/token",
        ]
        members[name] = name == "type" ? "" : nil
        let path = try makeTemporaryDirectory() + "/sa.json"
        try JSONSerialization.data(withJSONObject: members).write(to: URL(fileURLWithPath: path))
        let account = try #require(finding("fcm account", try findings(["FCM_SERVICE_ACCOUNT": path])))
        #expect(account.severity == .error)
        #expect(account.message.contains(says), "\(account.message)")
    }

    @Test("a private_key that is not an RSA key is refused without showing it")
    func notAKey() throws {
        let members = [
            "type": "service_account", "project_id": "demo-1", "client_email": "sa@demo-1.iam.gserviceaccount.com",
            "private_key_id": "0123abcd", "token_uri": "https://oauth2.googleapis.com/token",
            "private_key": "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ5dGVz\n-----END PRIVATE KEY-----\n",
        ]
        let path = try makeTemporaryDirectory() + "/sa.json"
        try JSONSerialization.data(withJSONObject: members).write(to: URL(fileURLWithPath: path))
        let account = try #require(finding("fcm account", try findings(["FCM_SERVICE_ACCOUNT": path])))
        #expect(account.severity == .error)
        #expect(account.message.contains(#""private_key""#), "\(account.message)")
        #expect(!account.message.contains("c2VjcmV0LWJ5dGVz"))
    }

    @Test("fcm_url over plain http is an error unless the host is this machine")
    func plainHTTP() throws {
        let remote = try #require(finding("fcm url", try findings(["FCM_URL": "http://fcm.example.com"])))
        #expect(remote.severity == .error && remote.source == "env")
        #expect(remote.message.contains("would send the access token unencrypted"), "\(remote.message)")
        let local = try #require(finding("fcm url", try findings(["FCM_URL": "http://127.0.0.1:2197"])))
        #expect(local.severity == .ok)
    }

    @Test("fcm_url without a service account is a warning that nothing reaches FCM devices")
    func urlWithoutAccount() throws {
        let findings = try findings(["FCM_URL": "https://127.0.0.1:2197"])
        let account = try #require(finding("fcm account", findings))
        #expect(account.severity == .warning && account.value == "(none)")
        #expect(account.message.hasPrefix("FCM_URL is set, but no service account"), "\(account.message)")
        #expect(DoctorReport.render(findings).contains("warn  fcm account"))
    }

    @Test("--online holds back each probe only for problems in what it uses")
    func probeGates() {
        func line(_ setting: String) -> DoctorFinding {
            DoctorFinding(setting: setting, value: "", source: "", severity: .error, message: "")
        }
        #expect(["fcm account", "fcm token uri", "fcm url", "fcm proxy"].allSatisfy { line($0).isAboutFCM })
        let shared = ["config file", "ca file", "proxy", "clock"]
        #expect(shared.allSatisfy { line($0).concernsFCM && !line($0).isAboutFCM })
        #expect(!["key file", "key id", "team id", "topic", "apns url"].contains { line($0).concernsFCM })
    }

    @Test("a proxy that NO_PROXY lifts for APNs but not for FCM gets a line of FCM's own")
    func proxy() throws {
        let findings = try findings([
            "FCM_URL": "https://fcm.example.com", "HTTPS_PROXY": "http://proxy:3128",
            "NO_PROXY": "api.push.apple.com",
        ])
        #expect(finding("proxy", findings)?.value == "(none)")
        #expect(finding("fcm proxy", findings)?.value == "http://proxy:3128")
        let same = try self.findings(["FCM_URL": "https://fcm.example.com", "HTTPS_PROXY": "http://proxy:3128"])
        #expect(finding("fcm proxy", same) == nil, "the same proxy for both is said once")
    }
}

/// What `apns-jwt check --online` concludes from the token endpoint's and FCM's answers.
@Suite("apns-jwt check --online: the FCM probe's answers")
struct FCMCredentialProbeTests {
    static let tokenRequest = HTTP2Request(
        url: "https://oauth2.googleapis.com/token", headers: [], body: Data("assertion=a.b.c".utf8), tag: 0)
    static let account = "service account sa@demo-1.iam.gserviceaccount.com of project demo-1"
    static let granted = answer(200, #"{"access_token":"ya29.secret-token","expires_in":3599,"token_type":"Bearer"}"#)

    static func answer(_ status: Int, _ body: String) -> Result<HTTP2Answer, TransportFailure> {
        .success(HTTP2Answer(status: status, headers: [:], body: Data(body.utf8)))
    }

    static func fcmError(
        _ code: Int, _ status: String, errorCode: String? = nil
    ) -> Result<HTTP2Answer, TransportFailure> {
        let detail =
            errorCode.map {
                #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"#
            } ?? ""
        return answer(code, #"{"error":{"code":\#(code),"message":"said","status":"\#(status)"\#(detail)}}"#)
    }

    /// The finding for the token endpoint's `token` answer and FCM's `send` answer; `sent` gets
    /// the requests made.
    static func probe(
        token: Result<HTTP2Answer, TransportFailure> = granted, send: Result<HTTP2Answer, TransportFailure>,
        sent: inout [HTTP2Request]
    ) -> DoctorFinding {
        var requests: [HTTP2Request] = []
        let finding = FCMCredentialProbe.finding(
            tokenRequest: tokenRequest, account: account, projectID: "demo-1", fcmURL: "https://fcm.googleapis.com",
            now: { Date(timeIntervalSince1970: 1_795_000_000) },
            perform: { request in
                requests.append(request)
                return requests.count == 1 ? token : send
            })
        sent = requests
        return finding
    }

    static func probe(
        token: Result<HTTP2Answer, TransportFailure> = granted, send: Result<HTTP2Answer, TransportFailure>
    ) -> DoctorFinding {
        var sent: [HTTP2Request] = []
        return probe(token: token, send: send, sent: &sent)
    }

    @Test("a token, then 200 to a validate_only message to a topic: all good, nothing delivered")
    func accepted() throws {
        var sent: [HTTP2Request] = []
        let finding = Self.probe(
            send: Self.answer(200, #"{"name":"projects/demo-1/messages/fake_message_id"}"#), sent: &sent)
        #expect(finding.severity == .ok && finding.setting == "fcm (online)", "\(finding.message)")
        #expect(finding.value == "https://fcm.googleapis.com")
        #expect(finding.message.contains("nothing was delivered") && finding.message.contains("project demo-1"))
        #expect(sent.count == 2)
        let message = try #require(sent.last)
        #expect(message.url == "https://fcm.googleapis.com/v1/projects/demo-1/messages:send")
        #expect(message.headers.contains { $0 == ("authorization", "Bearer ya29.secret-token") })
        let body = try #require(try JSONSerialization.jsonObject(with: message.body) as? [String: Any])
        #expect(body["validate_only"] as? Bool == true)
        #expect((body["message"] as? [String: Any])?["topic"] as? String == "pushkit-free-check")
        #expect((body["message"] as? [String: Any])?["token"] == nil, "no device is addressed")
    }

    @Test(
        "the token endpoint's refusals: invalid_grant points at the clock and the key; a 5xx is a warning",
        arguments: [
            (
                400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#,
                DoctorFinding.Severity.error, "clock"
            ),
            (401, #"{"error":"unauthorized_client"}"#, .error, "of project demo-1 with 401: unauthorized_client"),
            (503, "", .warning, "with 503"),
        ])
    func tokenRefused(status: Int, body: String, severity: DoctorFinding.Severity, mentions: String) {
        var sent: [HTTP2Request] = []
        let finding = Self.probe(token: Self.answer(status, body), send: Self.answer(200, "{}"), sent: &sent)
        #expect(finding.severity == severity, "\(finding.message)")
        #expect(finding.message.contains(mentions), "\(finding.message)")
        #expect(finding.message.contains("https://oauth2.googleapis.com/token"))
        #expect(sent.count == 1, "no message is sent without a token")
    }

    @Test(
        "FCM's refusals, each with its fix; a busy FCM is a warning",
        arguments: [
            (403, "PERMISSION_DENIED", nil, DoctorFinding.Severity.error, "Firebase Cloud Messaging API Admin role"),
            (403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH", .error, "Project ID"),
            (404, "NOT_FOUND", nil, .error, "refused project demo-1"),
            (401, "UNAUTHENTICATED", nil, .error, "must belong together"),
            (401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR", .error, "Apple app configuration"),
            (400, "INVALID_ARGUMENT", nil, .error, "refused the probe message"),
            (429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", .warning, "try again"),
            (503, "UNAVAILABLE", "UNAVAILABLE", .warning, "503 UNAVAILABLE: said"),
            (500, "INTERNAL", nil, .warning, "try again"),
        ] as [(Int, String, String?, DoctorFinding.Severity, String)])
    func sendRefused(
        status: Int, reason: String, errorCode: String?, severity: DoctorFinding.Severity, mentions: String
    ) {
        let finding = Self.probe(send: Self.fcmError(status, reason, errorCode: errorCode))
        #expect(finding.severity == severity, "\(finding.message)")
        #expect(finding.message.contains(mentions), "\(finding.message)")
        #expect(!finding.message.contains("ya29.secret-token"), "the access token never shows")
    }

    @Test("no answer: TLS names the CA setting and the host that failed, token endpoint or FCM")
    func unanswered() {
        let tls = TransportFailure(kind: .tls, code: 60, message: "SSL certificate problem")
        let token = Self.probe(token: .failure(tls), send: Self.answer(200, "{}"))
        #expect(token.severity == .error && token.message.contains("TLS with https://oauth2.googleapis.com/token"))
        #expect(token.message.contains("APNS_CA_FILE"))
        let send = Self.probe(send: .failure(TransportFailure(kind: .connect, code: 7, message: "refused")))
        #expect(send.severity == .error && send.message.contains("cannot reach https://fcm.googleapis.com"))
    }
}
