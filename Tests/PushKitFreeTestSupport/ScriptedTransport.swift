import Foundation
import PushKitFreeCore

/// A transport that answers from a script, per device token, on a virtual clock, and records what
/// it was sent and when: a token's answers can take `latency` of virtual time, and the time it
/// waits with nothing in flight (a back-off) is logged in `pauses`. Nothing really sleeps.
package final class ScriptedTransport: HTTP2Transport {
    /// Answers per token, consumed in order; the last one repeats.
    package var script: [String: [Result<HTTP2Answer, TransportFailure>]]
    /// How long each token's answers take; 0 when not listed.
    package var latency: [String: Duration]
    package private(set) var sent: [(url: String, authorization: String, at: Duration)] = []
    /// The body of each request of `sent`.
    package private(set) var sentBodies: [Data] = []
    /// The waits with nothing in flight.
    package private(set) var pauses: [Duration] = []
    /// Virtual time from the start of `perform` to its end.
    package private(set) var elapsed: Duration = .zero
    /// The connection each request of `sent` went out on: 0 for the first, one more after each
    /// `openNewConnection()`.
    package private(set) var connectionOfSend: [Int] = []
    private var connection = 0

    package init(_ script: [String: [Result<HTTP2Answer, TransportFailure>]], latency: [String: Duration] = [:]) {
        self.script = script
        self.latency = latency
    }

    /// Runs on virtual time, so `cutoff` (real time) is not consulted.
    package func perform(
        deadline: ContinuousClock.Instant, cutoff: () -> ContinuousClock.Instant?,
        next: (ContinuousClock.Instant) -> HTTP2RequestSupply, onResponse: (HTTP2Response) -> Void
    ) {
        let start = ContinuousClock.now
        var now = start
        var inFlight: [(done: ContinuousClock.Instant, request: HTTP2Request, token: String)] = []
        defer { elapsed = now - start }
        while true {
            if now >= deadline {
                for entry in inFlight {
                    onResponse(
                        HTTP2Response(
                            tag: entry.request.tag,
                            result: .failure(
                                TransportFailure(kind: .timeout, code: 28, message: "no answer before the deadline"))))
                }
                return
            }
            var wake: ContinuousClock.Instant?
            supply: while true {
                switch next(now) {
                case .request(let request):
                    let token = String(request.url.split(separator: "/").last ?? "")
                    sent.append(
                        (request.url, request.headers.first { $0.name == "authorization" }?.value ?? "", now - start))
                    connectionOfSend.append(connection)
                    sentBodies.append(request.body)
                    inFlight.append((now + (latency[token] ?? .zero), request, token))
                case .notBefore(let instant):
                    wake = instant
                    break supply
                case .exhausted:
                    break supply
                }
            }
            if inFlight.isEmpty && wake == nil { return }
            let target = min(inFlight.map(\.done).min() ?? deadline, wake ?? deadline, deadline)
            if target > now {
                if inFlight.isEmpty { pauses.append(target - now) }
                now = target
            }
            let done = inFlight.filter { $0.done <= now }
            inFlight.removeAll { $0.done <= now }
            for entry in done {
                var answers =
                    script[entry.token] ?? [
                        .success(HTTP2Answer(status: 200, headers: ["apns-id": "id"], body: Data()))
                    ]
                let answer = answers.count > 1 ? answers.removeFirst() : answers[0]
                script[entry.token] = answers
                onResponse(HTTP2Response(tag: entry.request.tag, result: answer))
            }
        }
    }
}

extension ScriptedTransport {
    /// An APNs answer: `status`, and a JSON body with `reason` (and `timestamp`) when given.
    package static func answer(
        _ status: Int, _ reason: String? = nil, timestamp: Int? = nil
    ) -> Result<HTTP2Answer, TransportFailure> {
        var body = ""
        if let reason { body = #"{"reason":"\#(reason)"\#(timestamp.map { ",\"timestamp\":\($0)" } ?? "")}"# }
        return .success(HTTP2Answer(status: status, headers: [:], body: Data(body.utf8)))
    }

    package func openNewConnection() { connection += 1 }
}

/// Provider tokens "t1", "t2", … with a log of replacements.
package final class CountingTokens: ProviderTokenSource {
    package private(set) var current = 1
    package private(set) var replaced: [String] = []

    package init() {}
    package func currentToken() throws -> String { "t\(current)" }
    package func replacement(for rejected: String) throws -> String {
        replaced.append(rejected)
        current += 1
        return "t\(current)"
    }
}

/// A new empty directory under the system's temporary directory.
package func makeTemporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushkit-unit-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
