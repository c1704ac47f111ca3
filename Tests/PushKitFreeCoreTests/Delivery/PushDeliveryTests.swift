import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

@Suite("delivery decisions")
struct PushDeliveryTests {
    let token = try! DeviceToken(validating: String(repeating: "ab", count: 32))
    let request = APNsRequest(bundleID: "com.example.app", payload: Data(#"{"aps":{}}"#.utf8))

    func deliver(
        _ transport: ScriptedTransport, tokens: CountingTokens = CountingTokens(), recorded: APNsEnvironment? = nil,
        retries: Int = 3
    ) throws -> DeliveryResult {
        let delivery = PushDelivery(
            client: transport, baseURL: { $0 == .production ? "https://prod" : "https://sandbox" }, tokens: tokens,
            policy: DeliveryPolicy(retries: retries), defaultEnvironment: .production, jitter: { 0.5 })
        return try #require(
            try delivery.deliver(
                request, to: [DeliveryTarget(deviceID: "d", token: token, recordedEnvironment: recorded)]
            ).first)
    }

    @Test("back-off doubles from 250 ms with jitter between half and one and a half, capped at 8 s")
    func backoff() {
        let policy = DeliveryPolicy()
        #expect(policy.backoff(beforeRetry: 1, jitter: 0.5) == .milliseconds(250))
        #expect(policy.backoff(beforeRetry: 2, jitter: 0.5) == .milliseconds(500))
        #expect(policy.backoff(beforeRetry: 3, jitter: 0) == .milliseconds(500))
        #expect(policy.backoff(beforeRetry: 3, jitter: 1) == .milliseconds(1500))
        #expect(policy.backoff(beforeRetry: 30, jitter: 0.5) == .seconds(8))
    }

    @Test("temporary failures are retried with growing pauses, then reported as failed")
    func retriesThenFails() throws {
        let transport = ScriptedTransport([token.text: [ScriptedTransport.answer(503, "ServiceUnavailable")]])
        let result = try deliver(transport, retries: 2)
        #expect(result.outcome == .failed)
        #expect(result.attempts == 3)
        #expect(result.isTemporaryFailure)
        #expect(transport.pauses == [.milliseconds(250), .milliseconds(500)])
    }

    /// Issue 11's known defect: delivery in lockstep rounds kept every retry waiting until the
    /// slowest request of the round answered or the deadline passed.
    @Test("a slow device holds up no retry: 429s and 500s are resent after their own back-off while it is in flight")
    func slowDeviceDoesNotStarveRetries() throws {
        let tokens = (0..<30).map {
            try! DeviceToken(validating: String(repeating: "cd", count: 28) + String(format: "%08x", $0))
        }
        var script: [String: [Result<HTTP2Answer, TransportFailure>]] = [:]
        var latency: [String: Duration] = [:]
        for (n, token) in tokens.enumerated() {
            switch n % 10 {
            case 0:
                script[token.text] = [ScriptedTransport.answer(429, "TooManyRequests"), ScriptedTransport.answer(200)]
            case 1:
                script[token.text] = [
                    ScriptedTransport.answer(500, "InternalServerError"), ScriptedTransport.answer(200),
                ]
            case 2: latency[token.text] = .seconds(8)
            default: break
            }
        }
        let transport = ScriptedTransport(script, latency: latency)
        let delivery = PushDelivery(
            client: transport, baseURL: { _ in "https://prod" }, tokens: CountingTokens(),
            policy: DeliveryPolicy(retries: 3, timeout: .seconds(4)), defaultEnvironment: .production, jitter: { 0.5 })
        let results = try delivery.deliver(
            request, to: tokens.map { DeliveryTarget(deviceID: nil, token: $0, recordedEnvironment: nil) })
        for (n, result) in results.enumerated() {
            switch n % 10 {
            case 0, 1:
                #expect(
                    result.outcome == .delivered && result.attempts == 2,
                    "device \(n): \(result.outcome) after \(result.attempts)")
            case 2:
                #expect(
                    result.outcome == .failed && result.transportFailure == .timeout && result.attempts == 1,
                    "device \(n)")
            default:
                #expect(result.outcome == .delivered && result.attempts == 1, "device \(n)")
            }
        }
        // Each retry went out 250 ms (its back-off) after the first answers, not after the slow device.
        let resends = transport.sent.filter { $0.at > .zero }
        #expect(resends.count == 6 && resends.allSatisfy { $0.at == .milliseconds(250) }, "\(resends.map(\.at))")
        #expect(
            transport.elapsed <= .seconds(4) && transport.elapsed > .milliseconds(3_990),
            "the run ends at its deadline, when the slow requests time out")
    }

    @Test("a lost connection is retried; a TLS failure is not")
    func transportFailures() throws {
        let lost = TransportFailure(kind: .connectionLost, code: 16, message: "stream reset")
        let delivered = try deliver(ScriptedTransport([token.text: [.failure(lost), ScriptedTransport.answer(200)]]))
        #expect(delivered.outcome == .delivered)
        #expect(delivered.attempts == 2)
        let tls = TransportFailure(kind: .tls, code: 60, message: "certificate verify failed")
        let failed = try deliver(ScriptedTransport([token.text: [.failure(tls)]]))
        #expect(failed.outcome == .failed && failed.attempts == 1 && !failed.isTemporaryFailure)
    }

    @Test("an expired provider token is replaced once and the request resent with the new one")
    func providerTokenReplaced() throws {
        let transport = ScriptedTransport([
            token.text: [ScriptedTransport.answer(403, "ExpiredProviderToken"), ScriptedTransport.answer(200)]
        ])
        let tokens = CountingTokens()
        let result = try deliver(transport, tokens: tokens)
        #expect(result.outcome == .delivered)
        #expect(tokens.replaced == ["t1"])
        #expect(transport.sent.map(\.authorization) == ["bearer t1", "bearer t2"])

        let stubborn = ScriptedTransport([token.text: [ScriptedTransport.answer(403, "InvalidProviderToken")]])
        let rejected = try deliver(stubborn)
        #expect(rejected.outcome == .rejected)
        #expect(stubborn.sent.count == 2, "replaced once, never twice")
    }

    @Test("BadDeviceToken switches environment once when none is recorded, never when one is")
    func environmentSwitch() throws {
        let transport = ScriptedTransport([
            token.text: [ScriptedTransport.answer(400, "BadDeviceToken"), ScriptedTransport.answer(200)]
        ])
        let learned = try deliver(transport)
        #expect(learned.outcome == .delivered && learned.environment == .sandbox)
        #expect(
            transport.sent.map(\.url) == [
                "https://prod/3/device/\(token.text)", "https://sandbox/3/device/\(token.text)",
            ])

        let pinned = try deliver(
            ScriptedTransport([token.text: [ScriptedTransport.answer(400, "BadDeviceToken")]]), recorded: .production)
        #expect(pinned.outcome == .rejected && pinned.attempts == 1)
    }

    @Test("410 carries its timestamp; permanent errors are not retried")
    func unregisteredAndPermanent() throws {
        let gone = try deliver(
            ScriptedTransport([
                token.text: [ScriptedTransport.answer(410, "Unregistered", timestamp: 1_700_000_000_000)]
            ]
            ))
        #expect(gone.outcome == .unregistered)
        #expect(gone.unregisteredAt == Date(timeIntervalSince1970: 1_700_000_000))
        let transport = ScriptedTransport([token.text: [ScriptedTransport.answer(400, "DeviceTokenNotForTopic")]])
        let rejected = try deliver(transport)
        #expect(rejected.outcome == .rejected && transport.sent.count == 1)
    }

    @Test("exit status: 0 all delivered or pruned, 75 only temporary, 69 unreachable, 1 otherwise")
    func exitStatus() {
        func result(
            _ outcome: DeliveryResult.Outcome, status: Int, failure: TransportFailure.Kind? = nil
        ) -> DeliveryResult {
            var result = DeliveryResult(
                target: DeliveryTarget(deviceID: nil, token: token, recordedEnvironment: nil), environment: .production)
            result.outcome = outcome
            result.status = status
            result.transportFailure = failure
            return result
        }
        #expect(DeliveryReport(results: [], seconds: 0).exitStatus == .success)
        #expect(
            DeliveryReport(results: [result(.delivered, status: 200), result(.unregistered, status: 410)], seconds: 0)
                .exitStatus == .success)
        #expect(
            DeliveryReport(results: [result(.delivered, status: 200), result(.failed, status: 503)], seconds: 0)
                .exitStatus == .temporaryFailure)
        #expect(
            DeliveryReport(results: [result(.failed, status: 0, failure: .connect)], seconds: 0).exitStatus
                == .unavailable)
        #expect(
            DeliveryReport(results: [result(.failed, status: 0, failure: .tls)], seconds: 0).exitStatus == .unavailable)
        #expect(
            DeliveryReport(results: [result(.rejected, status: 400), result(.failed, status: 503)], seconds: 0)
                .exitStatus == .partialFailure)
    }
}
