#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The results of a run, and what they mean for the exit status and the output.
public struct DeliveryReport: Sendable {
    public let results: [DeliveryResult]
    /// Wall time of the run, in seconds.
    public let seconds: Double

    public init(results: [DeliveryResult], seconds: Double) {
        self.results = results
        self.seconds = seconds
    }

    /// Every target reported `skipped` for `reason`, without anything sent.
    public static func skipped(
        _ targets: [DeliveryTarget], reason: String, environment: (DeliveryTarget) -> APNsEnvironment
    ) -> DeliveryReport {
        DeliveryReport(
            results: targets.map { target in
                var result = DeliveryResult(target: target, environment: environment(target))
                result.outcome = .skipped
                result.reason = reason
                return result
            }, seconds: 0)
    }

    public var delivered: Int { results.count { $0.outcome == .delivered } }
    public var skipped: Int { results.count { $0.outcome == .skipped } }
    public var pruned: Int { results.count(where: \.pruned) }
    /// Devices neither delivered nor unregistered.
    public var failed: Int { results.count { $0.outcome == .rejected || $0.outcome == .failed } }

    /// The process exit status:
    /// 0 when every device was delivered (a dead token that was answered 410 counts as handled);
    /// 69 when nothing got an HTTP answer and every failure was a connect or TLS failure;
    /// 75 when only temporary failures are left; 1 otherwise.
    public var exitStatus: ExitStatus {
        let unsuccessful = results.filter { $0.outcome == .rejected || $0.outcome == .failed }
        if unsuccessful.isEmpty { return .success }
        let answered = results.contains { $0.status != 0 }
        if !answered, unsuccessful.allSatisfy({ $0.transportFailure == .connect || $0.transportFailure == .tls }) {
            return .unavailable
        }
        if unsuccessful.allSatisfy(\.isTemporaryFailure) { return .temporaryFailure }
        return .partialFailure
    }

    /// One human-readable line per device: outcome, device id, masked token, then the status and
    /// reason (or the apns-id when delivered). Device ids and reasons (an APNs reason is whatever the
    /// server sent) are escaped (`TerminalText`); ids are cut as `TerminalText.field` does.
    public func lines(fullTokens: Bool) -> String {
        // The ids as shown (escaped and cut), so the column is as wide as what it holds.
        let ids = results.map { $0.target.deviceID.map { TerminalText.field($0) } ?? "-" }
        let idWidth = min(ids.map(\.count).max() ?? 1, 40)
        var text = ""
        for (result, id) in zip(results, ids) {
            let token = fullTokens ? result.target.token.hex : result.target.token.masked
            let reason = TerminalText.escaped(result.reason ?? "")
            var line = pad(result.outcome.rawValue, 12) + " " + pad(id, idWidth) + "  " + token + "  "
            switch result.outcome {
            case .delivered:
                line += "200"
                if let apnsID = result.apnsID { line += " " + apnsID }
            case .skipped:
                line += "not sent: \(reason)"
            default:
                line += result.status == 0 ? "no answer: \(reason)" : "\(result.status) \(reason)"
            }
            if result.pruned {
                line +=
                    result.target.tokenKind == .pushToStart
                    ? " (push-to-start token removed; device kept)" : " (removed from registry)"
            }
            if result.learnedEnvironment { line += " (environment: \(result.environment.rawValue))" }
            if result.attempts > 1 { line += " [\(result.attempts) attempts]" }
            text += line + "\n"
        }
        return text
    }

    /// One JSON object per device per line (JSON Lines).
    public func jsonLines(fullTokens: Bool) -> String {
        var text = ""
        for result in results {
            text += JSONValue.object(Self.members(of: result, fullTokens: fullTokens)).serializedString() + "\n"
        }
        return text
    }

    /// The members of one device's JSON object: `device`, `token`, `environment`, `outcome`,
    /// `status`, `reason`, `apns_id`, `attempts`, `pruned`, and `advice` when there is some (see
    /// `DeliveryAdvice`).
    public static func members(of result: DeliveryResult, fullTokens: Bool) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "device": result.target.deviceID.map(JSONValue.string) ?? .null,
            "token": .string(fullTokens ? result.target.token.hex : result.target.token.masked),
            "environment": .string(result.environment.rawValue),
            "outcome": .string(result.outcome.rawValue),
            "status": .number(Double(result.status)),
            "reason": result.reason.map(JSONValue.string) ?? .null,
            "apns_id": result.apnsID.map(JSONValue.string) ?? .null,
            "attempts": .number(Double(result.attempts)),
            "pruned": .bool(result.pruned),
        ]
        if let advice = result.advice { members["advice"] = .string(advice) }
        return members
    }

    /// Each distinct advice of the run once, in the order first given, with how many devices it
    /// concerns when more than one: for standard error, below the device lines.
    public var advice: [String] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for advice in results.compactMap(\.advice) {
            if counts[advice] == nil { order.append(advice) }
            counts[advice, default: 0] += 1
        }
        return order.map { advice in
            let count = counts[advice] ?? 1
            return count > 1 ? "\(advice) (\(count) devices)" : advice
        }
    }

    /// The summary line for standard error.
    public var summary: String {
        var parts = ["\(delivered) delivered", "\(failed) failed", "\(pruned) pruned"]
        let unregisteredKept = results.count { $0.outcome == .unregistered && !$0.pruned }
        if unregisteredKept > 0 { parts.append("\(unregisteredKept) unregistered kept") }
        if skipped > 0 { parts.append("\(skipped) skipped") }
        let hundredths = Int((seconds * 100).rounded())
        let fraction = hundredths % 100
        return parts.joined(separator: ", ") + " in \(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
