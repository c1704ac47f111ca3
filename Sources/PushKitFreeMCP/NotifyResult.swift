import PushKitFreeCore

/// What a `notify` call did, for the agent: one sentence it can relay ("Delivered to 2 devices
/// (phone, ipad); 1 pruned: old-phone (Unregistered, removed from the registry).") and the same
/// as structured JSON, one entry per device with its token masked.
package struct NotifyResult: Sendable {
    /// The sentence.
    package let text: String
    /// `summary`, the counts and `results` (as `send-push --json` writes them, tokens masked).
    package let structured: JSONValue
    /// Whether nothing reached a device although some were tried or refused: the agent should not report
    /// the notification as sent. A send the policy held back (quiet hours) is not an error.
    package let isError: Bool

    /// How many device names a sentence lists before "and N more".
    static let namesListed = 5

    package init(_ report: DeliveryReport) {
        let results = report.results
        func name(_ result: DeliveryResult) -> String {
            result.target.deviceID.map { TerminalText.field($0) } ?? result.target.token.masked
        }
        func names(_ selected: [DeliveryResult], detail: (DeliveryResult) -> String? = { _ in nil }) -> String {
            let sorted = selected.sorted { name($0) < name($1) }
            var listed = sorted.prefix(Self.namesListed).map { result in
                detail(result).map { "\(name(result)) (\($0))" } ?? name(result)
            }
            if selected.count > Self.namesListed { listed.append("and \(selected.count - Self.namesListed) more") }
            return listed.joined(separator: ", ")
        }
        func devices(_ count: Int) -> String { count == 1 ? "1 device" : "\(count) devices" }
        func answer(_ result: DeliveryResult) -> String {
            let reason = TerminalText.escaped(result.reason ?? "")
            return result.status == 0 ? "no answer: \(reason)" : "\(result.status) \(reason)"
        }

        let delivered = results.filter { $0.outcome == .delivered }
        let pruned = results.filter(\.pruned)
        let unregistered = results.filter { $0.outcome == .unregistered && !$0.pruned }
        let unsuccessful: [DeliveryResult.Outcome] = [.rejected, .failed, .notTried, .unknown]
        let failed = results.filter { unsuccessful.contains($0.outcome) }
        let skipped = results.filter { $0.outcome == .skipped }
        // An encrypted send to a device without a content key: never sent, never in clear.
        let refused = results.filter { $0.outcome == .refused }
        var parts: [String] = []
        if !delivered.isEmpty { parts.append("Delivered to \(devices(delivered.count)) (\(names(delivered)))") }
        if !pruned.isEmpty {
            let tokens = pruned.count == 1 ? "1 token" : "\(pruned.count) tokens"
            parts.append(
                "\(tokens) pruned: \(names(pruned) { "\($0.reason ?? "Unregistered"), removed from the registry" })")
        }
        if !unregistered.isEmpty {
            parts.append("\(devices(unregistered.count)) answered Unregistered but kept: \(names(unregistered))")
        }
        if !failed.isEmpty {
            parts.append("failed for \(devices(failed.count)): \(names(failed) { answer($0) })")
        }
        if !refused.isEmpty {
            parts.append(
                "refused for \(devices(refused.count)), never sent in clear: \(names(refused) { TerminalText.escaped($0.reason ?? "no content key") })"
            )
        }
        if !skipped.isEmpty {
            let reason = skipped.first?.reason.map { ": \(TerminalText.escaped($0))" } ?? ""
            parts.append("not sent to \(devices(skipped.count)) (held back\(reason))")
        }
        var text = parts.isEmpty ? "No device was sent to." : parts.joined(separator: "; ") + "."
        text = text.prefix(1).uppercased() + text.dropFirst()
        if let advice = report.advice.first { text += " \(advice)" }
        self.text = text
        isError = delivered.isEmpty && !(failed.isEmpty && refused.isEmpty)
        structured = .object([
            "summary": .string(text),
            "delivered": .number(Double(report.delivered)),
            "pruned": .number(Double(report.pruned)),
            "failed": .number(Double(failed.count + refused.count)),
            "skipped": .number(Double(report.skipped)),
            "results": .array(results.map { .object(DeliveryReport.members(of: $0, fullTokens: false)) }),
        ])
    }
}
