import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

/// What the pipeline does with APNs' key-scope answers: a new connection for
/// `UnrelatedKeyIdInToken`, nothing more for `BadEnvironmentKeyIdInToken`, pruning for `ExpiredToken`.
@Suite("delivery decisions: key scope")
struct KeyScopeDeliveryTests {
    let tokens = (1...3).map { try! DeviceToken(validating: String(repeating: "ab", count: 31) + "0\($0)") }
    let request = APNsRequest(bundleID: "com.example.app", payload: Data(#"{"aps":{}}"#.utf8))

    func deliver(_ transport: ScriptedTransport, recorded: APNsEnvironment? = nil) throws -> [DeliveryResult] {
        let delivery = PushDelivery(
            client: transport, baseURL: { $0 == .production ? "https://prod" : "https://sandbox" },
            tokens: CountingTokens(), policy: DeliveryPolicy(retries: 3), defaultEnvironment: .production,
            jitter: { 0.5 })
        return try delivery.deliver(
            request, to: tokens.map { DeliveryTarget(deviceID: nil, token: $0, recordedEnvironment: recorded) })
    }

    func script(_ answers: [Result<HTTP2Answer, TransportFailure>]) -> [String: [Result<HTTP2Answer, TransportFailure>]]
    {
        Dictionary(uniqueKeysWithValues: tokens.map { ($0.text, answers) })
    }

    @Test("UnrelatedKeyIdInToken: one new connection for the run, each affected request resent once on it")
    func unrelatedKeyOpensANewConnection() throws {
        let transport = ScriptedTransport(
            script([ScriptedTransport.answer(403, "UnrelatedKeyIdInToken"), ScriptedTransport.answer(200)]))
        let results = try deliver(transport)
        #expect(results.allSatisfy { $0.outcome == .delivered && $0.attempts == 2 })
        #expect(
            transport.connectionOfSend == [0, 0, 0, 1, 1, 1], "three sends, then three resends on one new connection")
    }

    @Test("UnrelatedKeyIdInToken again on the new connection: reported, not retried a second time")
    func unrelatedKeyPersists() throws {
        let transport = ScriptedTransport(script([ScriptedTransport.answer(403, "UnrelatedKeyIdInToken")]))
        let results = try deliver(transport)
        #expect(results.allSatisfy { $0.outcome == .rejected && $0.attempts == 2 && $0.status == 403 })
        #expect(transport.connectionOfSend == [0, 0, 0, 1, 1, 1], "one new connection, never a second")
        #expect(DeliveryReport(results: results, seconds: 0).exitStatus == .partialFailure)
    }

    @Test("BadEnvironmentKeyIdInToken: no retry and no switch to the other environment, even when none is recorded")
    func badEnvironmentKeyIsPermanent() throws {
        let transport = ScriptedTransport(script([ScriptedTransport.answer(403, "BadEnvironmentKeyIdInToken")]))
        let results = try deliver(transport)
        #expect(results.allSatisfy { $0.outcome == .rejected && $0.attempts == 1 && $0.environment == .production })
        #expect(transport.sent.allSatisfy { $0.url.hasPrefix("https://prod/") })
        #expect(transport.connectionOfSend == [0, 0, 0])
    }

    @Test("ExpiredToken is a dead token: unregistered with Apple's timestamp, not retried")
    func expiredTokenIsUnregistered() throws {
        let transport = ScriptedTransport(
            script([ScriptedTransport.answer(410, "ExpiredToken", timestamp: 1_700_000_000_000)]))
        let results = try deliver(transport)
        #expect(results.allSatisfy { $0.outcome == .unregistered && $0.attempts == 1 })
        #expect(results.allSatisfy { $0.unregisteredAt == Date(timeIntervalSince1970: 1_700_000_000) })
    }

    func result(
        _ status: Int, _ reason: String, recorded: APNsEnvironment? = nil,
        kind: DeliveryTarget.TokenKind = .device
    ) -> DeliveryResult {
        var result = DeliveryResult(
            target: DeliveryTarget(deviceID: "d", token: tokens[0], recordedEnvironment: recorded, tokenKind: kind),
            environment: recorded ?? .sandbox)
        result.status = status
        result.reason = reason
        return result
    }

    @Test("advice: the key's environment, and the way out that applies to the device")
    func environmentAdvice() {
        #expect(
            DeliveryAdvice.advice(for: result(403, "BadEnvironmentKeyIdInToken"), keyID: "ABCDE12345", topic: nil)
                == "key ABCDE12345 is limited to production, not sandbox: sign with a key for sandbox "
                + "(key_id and key_path) or send to production (--environment production)")
        #expect(
            DeliveryAdvice.advice(
                for: result(403, "BadEnvironmentKeyIdInToken", recorded: .sandbox), keyID: "ABCDE12345", topic: nil)
                == "key ABCDE12345 is limited to production, not sandbox: sign with a key for sandbox "
                + "(key_id and key_path); the device is registered for sandbox")
        #expect(
            DeliveryAdvice.advice(for: result(403, "BadEnvironmentKeyInToken"), keyID: "K", topic: nil)?
                .hasPrefix("key K is limited to production") == true,
            "APNSwift's spelling without Id is understood too")
    }

    @Test("advice: a persisting unrelated key, an expired push-to-start token; none for other reasons")
    func otherAdvice() {
        #expect(
            DeliveryAdvice.advice(for: result(403, "UnrelatedKeyIdInToken"), keyID: "K", topic: nil)?
                .contains("also on a new connection") == true)
        #expect(
            DeliveryAdvice.advice(for: result(410, "ExpiredToken", kind: .pushToStart), keyID: "K", topic: nil)
                == "the push-to-start token has expired: the app must send its new one")
        #expect(DeliveryAdvice.advice(for: result(410, "Unregistered"), keyID: "K", topic: nil) == nil)
        #expect(DeliveryAdvice.advice(for: result(400, "BadDeviceToken"), keyID: "K", topic: nil) == nil)
    }
}
