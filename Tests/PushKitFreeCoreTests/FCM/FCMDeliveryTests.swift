import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

/// The access-token cache and `FCMDelivery`'s decisions, on a scripted token endpoint and a
/// scripted transport (virtual time: nothing sleeps).
@Suite("FCM delivery decisions and the access-token cache")
struct FCMDeliveryTests {
    /// A token endpoint that hands out `access-1`, `access-2`, … (each good for an hour), or
    /// answers `failure` when set.
    final class TokenEndpoint: @unchecked Sendable {
        var requests = 0
        var failure: HTTP2Answer?
        func post(_ request: HTTP2Request) -> Result<HTTP2Answer, TransportFailure> {
            requests += 1
            if let failure { return .success(failure) }
            let body = #"{"access_token":"access-\#(requests)","expires_in":3599,"token_type":"Bearer"}"#
            return .success(HTTP2Answer(status: 200, headers: [:], body: Data(body.utf8)))
        }
    }

    static func fcmAnswer(
        _ status: Int, _ body: String, retryAfter: String? = nil
    ) -> Result<HTTP2Answer, TransportFailure> {
        .success(
            HTTP2Answer(status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:], body: Data(body.utf8)))
    }

    static let delivered = fcmAnswer(200, #"{"name":"projects/demo-project-1a2b3/messages/0:1"}"#)
    static func fcmError(_ status: Int, _ code: String, detail: String = "FcmError") -> String {
        let details =
            detail == "FcmError"
            ? #"[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(code)"}]"#
            : #"[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.data"}]}]"#
        return #"{"error":{"code":\#(status),"message":"m","status":"\#(code)","details":\#(details)}}"#
    }

    let directory: String
    let clock = ManualClock()
    let endpoint = TokenEndpoint()
    let target: DeliveryTarget

    init() throws {
        directory = try makeTemporaryDirectory()
        target = DeliveryTarget(
            deviceID: "pixel", token: try DeviceToken(validating: FCMFixtures.tokenText, transport: nil),
            recordedEnvironment: nil)
    }

    func tokens(warnings: ((String) -> Void)? = nil) throws -> FCMAccessTokens {
        FCMAccessTokens(
            account: try FCMFixtures.account(),
            cache: FCMAccessTokenCache(stateDirectory: directory, clock: clock), post: endpoint.post,
            warn: warnings ?? { Issue.record("unexpected warning: \($0)") })
    }

    func deliver(
        _ answers: [Result<HTTP2Answer, TransportFailure>], retries: Int = 3
    ) throws -> (result: DeliveryResult, transport: ScriptedTransport) {
        let transport = ScriptedTransport(["messages:send": answers])
        let lane = FCMDelivery(
            targets: [target], message: { _ in .success(Data(#"{"message":{}}"#.utf8)) }, baseURL: "https://fcm.test/",
            tokens: try tokens(), policy: DeliveryPolicy(retries: retries),
            deadline: ContinuousClock.now + .seconds(30), defaultEnvironment: .production, jitter: { 0.5 })
        DeliveryLanes.perform(
            on: transport, deadline: ContinuousClock.now + .seconds(30), cutoff: { nil }, alongside: [lane],
            next: { _ in .exhausted }, onResponse: { _ in })
        return (try #require(lane.finish().first), transport)
    }

    @Test(
        "the access token is fetched once, kept 0600 in the state directory, and reused until a minute before it expires"
    )
    func cacheReuse() throws {
        #expect(try tokens().current() == "access-1")
        #expect(try tokens().current() == "access-1")
        #expect(endpoint.requests == 1)
        let path = directory + "/fcm-access-token.json"
        #expect(PosixFile.permissionsOpenToOthers(of: path) == nil)
        clock.advance(by: 3599 - 61)
        #expect(try tokens().current() == "access-1")
        clock.advance(by: 2)
        #expect(try tokens().current() == "access-2")
        #expect(endpoint.requests == 2)
        // A refused token is replaced, but a replacement another process already made is taken.
        #expect(try tokens().replacement(for: "access-2") == "access-3")
        #expect(try tokens().replacement(for: "access-2") == "access-3")
        #expect(endpoint.requests == 3)
    }

    @Test("a refusing token endpoint is an error naming the endpoint and the account, never a token")
    func endpointRefuses() throws {
        endpoint.failure = HTTP2Answer(
            status: 400, headers: [:], body: Data(#"{"error":"invalid_grant","error_description":"Invalid JWT"}"#.utf8))
        #expect {
            try tokens().current()
        } throws: { error in
            let message = (error as? FCMAuthenticationError)?.message ?? ""
            return message.contains("https://oauth2.googleapis.com/token") && message.contains("invalid_grant")
                && message.contains("firebase-adminsdk-abc12@")
                && (error as? FCMAuthenticationError)?.exitStatus == .configuration
        }
    }

    @Test("the message goes to {fcm_url}/v1/projects/{project}/messages:send with the access token as bearer")
    func request() throws {
        let (result, transport) = try deliver([Self.delivered])
        #expect(result.outcome == .delivered && result.fcmName == "projects/demo-project-1a2b3/messages/0:1")
        #expect(transport.sent.map(\.url) == ["https://fcm.test/v1/projects/demo-project-1a2b3/messages:send"])
        #expect(transport.sent.map(\.authorization) == ["Bearer access-1"])
    }

    @Test("UNREGISTERED and a token's INVALID_ARGUMENT are a dead token; a message's INVALID_ARGUMENT is not")
    func deadOrBad() throws {
        let dead = try deliver([Self.fcmAnswer(404, Self.fcmError(404, "UNREGISTERED"))]).result
        #expect(dead.outcome == .unregistered && dead.unregisteredAt != nil && dead.attempts == 1)
        let badToken = try deliver([Self.fcmAnswer(400, Self.fcmError(400, "INVALID_ARGUMENT"))]).result
        #expect(badToken.outcome == .unregistered)
        let badMessage = try deliver([
            Self.fcmAnswer(400, Self.fcmError(400, "INVALID_ARGUMENT", detail: "BadRequest"))
        ]).result
        #expect(badMessage.outcome == .rejected && badMessage.reason?.hasPrefix("INVALID_ARGUMENT") == true)
        let mismatch = try deliver([Self.fcmAnswer(403, Self.fcmError(403, "SENDER_ID_MISMATCH"))]).result
        #expect(mismatch.outcome == .rejected && mismatch.advice?.contains("demo-project-1a2b3") == true)
    }

    @Test("UNAUTHENTICATED: one new access token and the message sent again; refused again, FCM stops")
    func unauthenticated() throws {
        let refused = Self.fcmAnswer(401, #"{"error":{"code":401,"message":"m","status":"UNAUTHENTICATED"}}"#)
        let (once, transport) = try deliver([refused, Self.delivered])
        #expect(once.outcome == .delivered && once.attempts == 2)
        #expect(transport.sent.map(\.authorization) == ["Bearer access-1", "Bearer access-2"])
        let twice = try deliver([refused]).result
        #expect(twice.outcome == .rejected && twice.advice?.contains("freshly issued") == true)
    }

    @Test("429 is resent no sooner than its Retry-After, 503 after the policy's back-off; out of retries it fails")
    func retries() throws {
        let quota = Self.fcmAnswer(429, Self.fcmError(429, "QUOTA_EXCEEDED"), retryAfter: "5")
        let (result, transport) = try deliver([quota, Self.delivered])
        #expect(result.outcome == .delivered && result.attempts == 2)
        #expect(transport.pauses == [.seconds(5)])
        let busy = Self.fcmAnswer(503, Self.fcmError(503, "UNAVAILABLE"))
        let (failed, pauses) = try deliver([busy], retries: 1)
        #expect(failed.outcome == .failed && failed.attempts == 2 && failed.isTemporaryFailure)
        #expect(pauses.pauses == [.milliseconds(250)])
        // A Retry-After beyond the run's time is honoured: not resent, and the reason says why.
        let later = Self.fcmAnswer(429, Self.fcmError(429, "QUOTA_EXCEEDED"), retryAfter: "3600")
        let gaveUp = try deliver([later]).result
        #expect(gaveUp.outcome == .failed && gaveUp.attempts == 1)
        #expect(gaveUp.reason?.contains("asked to wait 3600 s") == true)
    }

    @Test("no access token at all: the FCM devices are not tried, with the token endpoint's message")
    func noAccessToken() throws {
        endpoint.failure = HTTP2Answer(status: 503, headers: [:], body: Data())
        let (result, transport) = try deliver([Self.delivered])
        #expect(result.outcome == .notTried && transport.sent.isEmpty)
        #expect(result.reason?.contains("refused") == true)
        if case .fcm(let status, _, _)? = result.stoppedBy { #expect(status == 0) } else { Issue.record("no stop") }
    }
}
