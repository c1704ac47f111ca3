import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What became of one broadcast: the channel, APNs' answer, and what it means for the exit status
/// and the output, in the shape of `DeliveryReport` (one line, or one JSON object).
package struct BroadcastReport: Sendable {
    /// The channel it went to.
    package let target: BroadcastChannels.Target
    /// `delivered` (APNs accepted it for the channel's devices), `rejected` or `failed` (no success
    /// after retries: 429, 5xx or no answer).
    package let outcome: DeliveryResult.Outcome
    /// The HTTP status of the last answer; 0 when there was none.
    package let status: Int
    /// APNs' reason, or the transport's message when there was no answer.
    package let reason: String?
    /// `apns-request-id` of the last answer.
    package let requestID: String?
    /// How many times the request was sent.
    package let attempts: Int
    /// What kind of transport failure, when there was no HTTP answer.
    package let transportFailure: TransportFailure.Kind?
    /// Wall time, in seconds.
    package let seconds: Double

    /// Reads the outcome of `SingleRequestDelivery`.
    package init(target: BroadcastChannels.Target, outcome delivery: SingleRequestDelivery.Outcome, seconds: Double) {
        self.target = target
        self.seconds = seconds
        attempts = delivery.attempts
        if let answer = delivery.answer {
            status = answer.status
            requestID = answer.headers["apns-request-id"]
            transportFailure = nil
            switch APNsResponse(answer) {
            case .accepted:
                outcome = .delivered
                reason = nil
            case .rejected(let rejection, _, _):
                reason = rejection.reason.rawValue
                outcome = rejection.status == 429 || rejection.status >= 500 ? .failed : .rejected
            }
        } else {
            status = 0
            requestID = nil
            outcome = .failed
            reason = delivery.failure?.message ?? "no answer"
            transportFailure = delivery.failure?.kind ?? .timeout
        }
    }

    /// Whether APNs said the channel does not exist (deleted, or of the other environment).
    package var channelNotRegistered: Bool { reason == APNsReason.channelNotRegistered.rawValue }

    /// 0 delivered; 69 no answer because of a connect or TLS failure; 75 a temporary failure
    /// (429, 5xx, lost connection, timeout); 1 a refusal (as `DeliveryReport` counts a device).
    package var exitStatus: ExitStatus {
        switch outcome {
        case .delivered: return .success
        case .failed where status == 0:
            return transportFailure == .connect || transportFailure == .tls ? .unavailable : .temporaryFailure
        case .failed: return .temporaryFailure
        default: return .partialFailure
        }
    }

    /// The channel's name as shown, `-` for a bare id.
    private var name: String { target.record.map { TerminalText.field($0.name) } ?? "-" }

    /// One line: outcome, `channel`, name, id, environment, then the status and reason (or the
    /// apns-request-id when delivered).
    package var line: String {
        let outcomeColumn = outcome.rawValue + String(repeating: " ", count: max(0, 12 - outcome.rawValue.count))
        var line = "\(outcomeColumn) channel \(name)  \(target.id)  \(target.environment.rawValue)  "
        switch outcome {
        case .delivered:
            line += "200" + (requestID.map { " " + $0 } ?? "")
        default:
            let reason = TerminalText.escaped(self.reason ?? "")
            line += status == 0 ? "no answer: \(reason)" : "\(status) \(reason)"
        }
        if attempts > 1 { line += " [\(attempts) attempts]" }
        return line + "\n"
    }

    /// One JSON object: `channel` (name or null), `channel_id`, `environment`, `outcome`, `status`,
    /// `reason`, `apns_request_id`, `attempts` (the device report's members, for a channel).
    package var jsonLine: String {
        JSONValue.object([
            "channel": target.record.map { .string($0.name) } ?? .null,
            "channel_id": .string(target.id),
            "environment": .string(target.environment.rawValue),
            "outcome": .string(outcome.rawValue),
            "status": .number(Double(status)),
            "reason": reason.map(JSONValue.string) ?? .null,
            "apns_request_id": requestID.map(JSONValue.string) ?? .null,
            "attempts": .number(Double(attempts)),
        ]).serializedString() + "\n"
    }

    /// The summary line for standard error.
    package var summary: String {
        let hundredths = Int((seconds * 100).rounded())
        let fraction = hundredths % 100
        let time = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
        switch outcome {
        case .delivered: return "broadcast to channel \(target.label) accepted in \(time)"
        default:
            var text = "broadcast to channel \(target.label) not accepted in \(time)"
            if channelNotRegistered {
                text +=
                    ": APNs has no such channel in \(target.environment.rawValue) (deleted, or of the other environment)"
                if let record = target.record {
                    text +=
                        "; the name \"\(TerminalText.field(record.name))\" is stale: "
                        + "forget it with register-apns channel delete \(TerminalText.field(record.name))"
                }
            } else if let reason, let explanation = BroadcastChannelError.explanation(of: APNsReason(rawValue: reason))
            {
                text += ": \(explanation)"
            }
            return text
        }
    }
}
