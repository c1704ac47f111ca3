import Foundation
import Testing
@testable import PushKitFreeCore

/// A transport that answers from a script, per device token, and records what it was sent.
final class ScriptedTransport: HTTP2Transport {
    /// Answers per token, consumed in order; the last one repeats.
    var script: [String: [Result<HTTP2Answer, TransportFailure>]]
    private(set) var sent: [(url: String, authorization: String)] = []

    init(_ script: [String: [Result<HTTP2Answer, TransportFailure>]]) { self.script = script }

    func perform<Requests: Sequence<HTTP2Request>>(_ requests: Requests, deadline: ContinuousClock.Instant, onResponse: (HTTP2Response) -> Void) {
        for request in requests {
            sent.append((request.url, request.headers.first { $0.name == "authorization" }?.value ?? ""))
            let token = String(request.url.split(separator: "/").last ?? "")
            var answers = script[token] ?? [.success(HTTP2Answer(status: 200, headers: ["apns-id": "id"], body: Data()))]
            let answer = answers.count > 1 ? answers.removeFirst() : answers[0]
            script[token] = answers
            onResponse(HTTP2Response(tag: request.tag, result: answer))
        }
    }
}

/// The pauses a delivery asked for, instead of sleeping.
final class PauseLog {
    var pauses: [Duration] = []
}

/// Provider tokens "t1", "t2", … with a log of replacements.
final class CountingTokens: ProviderTokenSource {
    private(set) var current = 1
    private(set) var replaced: [String] = []
    func currentToken() throws -> String { "t\(current)" }
    func replacement(for rejected: String) throws -> String {
        replaced.append(rejected)
        current += 1
        return "t\(current)"
    }
}

@Suite("delivery decisions")
struct PushDeliveryTests {
    static func answer(_ status: Int, _ reason: String? = nil, timestamp: Int? = nil) -> Result<HTTP2Answer, TransportFailure> {
        var body = ""
        if let reason { body = #"{"reason":"\#(reason)"\#(timestamp.map { ",\"timestamp\":\($0)" } ?? "")}"# }
        return .success(HTTP2Answer(status: status, headers: [:], body: Data(body.utf8)))
    }

    let token = try! DeviceToken(validating: String(repeating: "ab", count: 32))
    let request = APNsRequest(bundleID: "com.example.app", payload: Data(#"{"aps":{}}"#.utf8))

    func deliver(_ transport: ScriptedTransport, tokens: CountingTokens = CountingTokens(), recorded: APNsEnvironment? = nil,
                 retries: Int = 3, pauses: PauseLog = PauseLog()) throws -> DeliveryResult {
        let delivery = PushDelivery(
            client: transport, baseURL: { $0 == .production ? "https://prod" : "https://sandbox" }, tokens: tokens,
            policy: DeliveryPolicy(retries: retries), defaultEnvironment: .production,
            pause: { pauses.pauses.append($0) }, jitter: { 0.5 })
        return try #require(try delivery.deliver(request, to: [DeliveryTarget(deviceID: "d", token: token, recordedEnvironment: recorded)]).first)
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
        let transport = ScriptedTransport([token.hex: [Self.answer(503, "ServiceUnavailable")]])
        let log = PauseLog()
        let result = try deliver(transport, retries: 2, pauses: log)
        #expect(result.outcome == .failed)
        #expect(result.attempts == 3)
        #expect(result.isTemporaryFailure)
        #expect(log.pauses == [.milliseconds(250), .milliseconds(500)])
    }

    @Test("a lost connection is retried; a TLS failure is not")
    func transportFailures() throws {
        let lost = TransportFailure(kind: .connectionLost, code: 16, message: "stream reset")
        let delivered = try deliver(ScriptedTransport([token.hex: [.failure(lost), Self.answer(200)]]))
        #expect(delivered.outcome == .delivered)
        #expect(delivered.attempts == 2)
        let tls = TransportFailure(kind: .tls, code: 60, message: "certificate verify failed")
        let failed = try deliver(ScriptedTransport([token.hex: [.failure(tls)]]))
        #expect(failed.outcome == .failed && failed.attempts == 1 && !failed.isTemporaryFailure)
    }

    @Test("an expired provider token is replaced once and the request resent with the new one")
    func providerTokenReplaced() throws {
        let transport = ScriptedTransport([token.hex: [Self.answer(403, "ExpiredProviderToken"), Self.answer(200)]])
        let tokens = CountingTokens()
        let result = try deliver(transport, tokens: tokens)
        #expect(result.outcome == .delivered)
        #expect(tokens.replaced == ["t1"])
        #expect(transport.sent.map(\.authorization) == ["bearer t1", "bearer t2"])

        let stubborn = ScriptedTransport([token.hex: [Self.answer(403, "InvalidProviderToken")]])
        let rejected = try deliver(stubborn)
        #expect(rejected.outcome == .rejected)
        #expect(stubborn.sent.count == 2, "replaced once, never twice")
    }

    @Test("BadDeviceToken switches environment once when none is recorded, never when one is")
    func environmentSwitch() throws {
        let transport = ScriptedTransport([token.hex: [Self.answer(400, "BadDeviceToken"), Self.answer(200)]])
        let learned = try deliver(transport)
        #expect(learned.outcome == .delivered && learned.environment == .sandbox)
        #expect(transport.sent.map(\.url) == ["https://prod/3/device/\(token.hex)", "https://sandbox/3/device/\(token.hex)"])

        let pinned = try deliver(ScriptedTransport([token.hex: [Self.answer(400, "BadDeviceToken")]]), recorded: .production)
        #expect(pinned.outcome == .rejected && pinned.attempts == 1)
    }

    @Test("410 carries its timestamp; permanent errors are not retried")
    func unregisteredAndPermanent() throws {
        let gone = try deliver(ScriptedTransport([token.hex: [Self.answer(410, "Unregistered", timestamp: 1_700_000_000_000)]]))
        #expect(gone.outcome == .unregistered)
        #expect(gone.unregisteredAt == Date(timeIntervalSince1970: 1_700_000_000))
        let transport = ScriptedTransport([token.hex: [Self.answer(400, "DeviceTokenNotForTopic")]])
        let rejected = try deliver(transport)
        #expect(rejected.outcome == .rejected && transport.sent.count == 1)
    }

    @Test("exit status: 0 all delivered or pruned, 75 only temporary, 69 unreachable, 1 otherwise")
    func exitStatus() {
        func result(_ outcome: DeliveryResult.Outcome, status: Int, failure: TransportFailure.Kind? = nil) -> DeliveryResult {
            var result = DeliveryResult(target: DeliveryTarget(deviceID: nil, token: token, recordedEnvironment: nil), environment: .production)
            result.outcome = outcome
            result.status = status
            result.transportFailure = failure
            return result
        }
        #expect(DeliveryReport(results: [], seconds: 0).exitStatus == .success)
        #expect(DeliveryReport(results: [result(.delivered, status: 200), result(.unregistered, status: 410)], seconds: 0).exitStatus == .success)
        #expect(DeliveryReport(results: [result(.delivered, status: 200), result(.failed, status: 503)], seconds: 0).exitStatus == .temporaryFailure)
        #expect(DeliveryReport(results: [result(.failed, status: 0, failure: .connect)], seconds: 0).exitStatus == .unavailable)
        #expect(DeliveryReport(results: [result(.failed, status: 0, failure: .tls)], seconds: 0).exitStatus == .unavailable)
        #expect(DeliveryReport(results: [result(.rejected, status: 400), result(.failed, status: 503)], seconds: 0).exitStatus == .partialFailure)
    }
}
