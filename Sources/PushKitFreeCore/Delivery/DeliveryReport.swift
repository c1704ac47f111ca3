#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The results of a run, and what they mean for the exit status and the output.
package struct DeliveryReport: Sendable {
    /// One result per target.
    package let results: [DeliveryResult]
    /// Wall time of the run, in seconds.
    package let seconds: Double

    /// The report on `results`, which took `seconds` of wall time.
    package init(results: [DeliveryResult], seconds: Double) {
        self.results = results
        self.seconds = seconds
        // One pass over the results for every count the summary and the callers ask for (a large
        // fan-out has tens of thousands), reading fields in place rather than copying each result.
        var counts = (delivered: 0, skipped: 0, pruned: 0, failed: 0, unregisteredKept: 0, pruneFailures: 0)
        var notTried = 0, unknown = 0, refused = 0, refusedUnreadable = 0, refusedByFCM = 0
        var stop: DeliveryStop?
        for index in results.indices {
            switch results[index].outcome {
            case .delivered: counts.delivered += 1
            case .skipped: counts.skipped += 1
            case .notTried:
                notTried += 1
                if stop == nil { stop = results[index].stoppedBy }
            case .unknown: unknown += 1
            case .rejected, .failed: counts.failed += 1
            case .refused:
                counts.failed += 1
                refused += 1
                if results[index].target.unusableRecord != nil {
                    refusedUnreadable += 1
                } else if results[index].target.token.transport == .fcm,
                    results[index].reason != ContentKeyError.missing
                {
                    refusedByFCM += 1
                }
            case .unregistered where results[index].pruneFailure != nil: counts.pruneFailures += 1
            case .unregistered where !results[index].pruned: counts.unregisteredKept += 1
            case .unregistered: break
            }
            if results[index].pruned { counts.pruned += 1 }
        }
        (delivered, skipped, pruned, failed, unregisteredKept, pruneFailures) = counts
        self.notTried = notTried
        self.unknown = unknown
        self.refused = refused
        self.refusedUnreadable = refusedUnreadable
        self.refusedByFCM = refusedByFCM
        self.stop = stop
    }

    /// Every target reported `skipped` for `reason`, without anything sent.
    package static func skipped(
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

    /// Devices APNs accepted the notification for.
    package let delivered: Int
    /// Devices the policy held back, with nothing sent.
    package let skipped: Int
    /// Devices removed from the registry after a 410.
    package let pruned: Int
    /// Devices neither delivered nor unregistered (refused ones included).
    package let failed: Int
    /// Devices answered 410 that stay registered (the app registered again after the 410).
    private let unregisteredKept: Int
    /// Devices answered 410 that stay registered because the registry could not be written.
    package let pruneFailures: Int
    /// Devices not sent to: the run stopped at a failure that was the same for every device.
    package let notTried: Int
    /// That failure, when the run stopped at one.
    package let stop: DeliveryStop?
    /// Devices sent to whose answer did not come before the run was interrupted.
    package let unknown: Int
    /// Devices refused without being sent to (an encrypted send's devices without a content key,
    /// devices whose records cannot be read), counted in `failed` too.
    package let refused: Int
    /// Of `refused`, the devices whose records cannot be read.
    package let refusedUnreadable: Int
    /// Of `refused`, the FCM devices the notification cannot be carried to (`FCMMessageError`).
    package let refusedByFCM: Int

    /// The process exit status:
    /// 0 when every device was delivered (a dead token that was answered 410 counts as handled,
    /// once it is pruned: 74 when the registry could not be written to prune it);
    /// 69 when nothing got an HTTP answer and every failure was a connect or TLS failure;
    /// 78 when the run stopped because APNs refused the credentials and nothing was delivered;
    /// 75 when only temporary failures are left;
    /// 65 when nothing was delivered and every device was refused (an encrypted send to devices
    /// without a content key, devices whose records cannot be read); 1 otherwise.
    package var exitStatus: ExitStatus {
        if failed == 0, notTried == 0, unknown == 0 { return pruneFailures > 0 ? .ioError : .success }
        let unsuccessful = results.filter {
            $0.outcome == .rejected || $0.outcome == .failed || $0.outcome == .notTried || $0.outcome == .unknown
                || $0.outcome == .refused
        }
        if delivered == 0, unsuccessful.allSatisfy({ $0.outcome == .refused }) { return .dataError }
        let answered = results.contains { $0.status != 0 }
        if !answered, unsuccessful.allSatisfy({ $0.transportFailure == .connect || $0.transportFailure == .tls }) {
            return .unavailable
        }
        if delivered == 0 {
            switch stop {
            case .credentials?, .fcm?: return .configuration
            default: break
            }
        }
        if unsuccessful.allSatisfy(\.isTemporaryFailure) { return .temporaryFailure }
        return .partialFailure
    }

    /// One human-readable line per device: outcome, device id, masked token, then the status and
    /// reason (or the apns-id when delivered). Device ids and reasons (an APNs reason is whatever the
    /// server sent) are escaped (`TerminalText`); ids are cut as `TerminalText.field` does.
    ///
    /// After a run stopped at a failure that was the same for every device (`stop`), the devices
    /// that failed with it and those not tried are one line each, with their counts, not one line a
    /// device: the failure is reported once.
    /// - Parameter printed: devices whose line was already written (streamed while the run went
    ///   on), left out here.
    /// - Parameter idWidth: the id column's width when the caller has it (`idWidth(of:)` of the
    ///   results' targets, which costs a pass over every id).
    package func lines(fullTokens: Bool, excluding printed: Set<Int> = [], idWidth: Int? = nil) -> String {
        let idWidth = idWidth ?? Self.idWidth(of: results.map(\.target))
        // Built in one string, piece by piece: a fan-out to many devices prints as many lines.
        var text = ""
        text.reserveCapacity((results.count - printed.count) * (idWidth + 80))
        var failedTheSameWay = 0
        for index in results.indices where !printed.contains(index) {
            if results[index].outcome == .notTried { continue }
            if let stop, Self.failed(results[index], by: stop) {
                failedTheSameWay += 1
                continue
            }
            Self.appendLine(of: results[index], idWidth: idWidth, fullTokens: fullTokens, to: &text)
        }
        if let stop {
            let reason = TerminalText.escaped(stop.description)
            if failedTheSameWay > 0 {
                let more = printed.contains(where: { Self.failed(results[$0], by: stop) }) ? " more" : ""
                Self.append("failed", paddedTo: 12, to: &text)
                text += " \(failedTheSameWay)\(more) device\(failedTheSameWay == 1 ? "" : "s"): \(reason)\n"
            }
            Self.append(DeliveryResult.Outcome.notTried.rawValue, paddedTo: 12, to: &text)
            text += " \(notTried) device\(notTried == 1 ? "" : "s"): stopped after the same failure for every device\n"
        } else if notTried > 0 {
            Self.append(DeliveryResult.Outcome.notTried.rawValue, paddedTo: 12, to: &text)
            text += " \(notTried) device\(notTried == 1 ? "" : "s"): the run was interrupted before they were sent\n"
        }
        return text
    }

    /// The width of the device id column for `targets`: their ids as shown (escaped and cut, "-"
    /// for a `--token` target), at most 40 characters.
    package static func idWidth(of targets: [DeliveryTarget]) -> Int {
        min(targets.map { $0.deviceID.map { TerminalText.field($0).count } ?? 1 }.max() ?? 1, 40)
    }

    /// Whether `result` would be reported apart from the others after a stop: the same failure
    /// as `stop`, or not tried because of it.
    package static func isPartOfStop(_ result: DeliveryResult, _ stop: DeliveryStop) -> Bool {
        result.outcome == .notTried || failed(result, by: stop)
    }

    /// Appends the line of `result`, its id padded to `idWidth`.
    package static func appendLine(
        of result: DeliveryResult, idWidth: Int, fullTokens: Bool, to text: inout String
    ) {
        let outcome = result.outcome
        append(outcome.rawValue, paddedTo: 12, to: &text)
        text += " "
        append(result.target.deviceID.map { TerminalText.field($0) } ?? "-", paddedTo: idWidth, to: &text)
        text += "  "
        if fullTokens {
            text += result.target.token.shownInFull
        } else {
            result.target.token.appendMasked(to: &text)
        }
        text += "  "
        switch outcome {
        case .delivered:
            text += "200"
            if let id = result.apnsID ?? result.fcmName {
                text += " "
                text += id
            }
        case .skipped, .refused:
            text += "not sent: "
            text += TerminalText.escaped(result.reason ?? "")
        default:
            let reason = TerminalText.escaped(result.reason ?? "")
            text += result.status == 0 ? "no answer: \(reason)" : "\(result.status) \(reason)"
        }
        if result.pruneFailure != nil {
            text += " (not removed from registry: it could not be written)"
        }
        if result.pruned {
            text +=
                result.target.tokenKind == .pushToStart
                ? " (push-to-start token removed; device kept)" : " (removed from registry)"
        }
        if result.learnedEnvironment {
            text += " (environment: \(result.environment.rawValue))"
        }
        let attempts = result.attempts
        if attempts > 1 { text += " [\(attempts) attempts]" }
        text += "\n"
    }

    /// One JSON object per device per line (JSON Lines).
    package func jsonLines(fullTokens: Bool) -> String {
        var text = ""
        for result in results {
            text += JSONValue.object(Self.members(of: result, fullTokens: fullTokens)).serializedString() + "\n"
        }
        return text
    }

    /// The members of one device's JSON object: `device`, `token`, `environment`, `outcome`,
    /// `status`, `reason`, `apns_id`, `attempts`, `pruned`, and `advice` when there is some (see
    /// `DeliveryAdvice`). An FCM device's has `"transport": "fcm"`, `environment` null, and
    /// `fcm_name`, the message's name when FCM accepted it.
    package static func members(of result: DeliveryResult, fullTokens: Bool) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "device": result.target.deviceID.map(JSONValue.string) ?? .null,
            "token": .string(fullTokens ? result.target.token.shownInFull : result.target.token.masked),
            "environment": .string(result.environment.rawValue),
            "outcome": .string(result.outcome.rawValue),
            "status": .number(Double(result.status)),
            "reason": result.reason.map(JSONValue.string) ?? .null,
            "apns_id": result.apnsID.map(JSONValue.string) ?? .null,
            "attempts": .number(Double(result.attempts)),
            "pruned": .bool(result.pruned),
        ]
        if result.target.token.transport == .fcm {
            members["transport"] = "fcm"
            members["environment"] = .null
            members["fcm_name"] = result.fcmName.map(JSONValue.string) ?? .null
        }
        if let advice = result.advice { members["advice"] = .string(advice) }
        if let failure = result.pruneFailure { members["prune_error"] = .string(failure) }
        return members
    }

    /// Each distinct advice of the run once, in the order first given, with how many devices it
    /// concerns when more than one: for standard error, below the device lines.
    package var advice: [String] {
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
    package var summary: String {
        var refusals: [String] = []
        let noKey = refused - refusedUnreadable - refusedByFCM
        if noKey > 0 { refusals.append("\(noKey) refused: no content key") }
        if refusedByFCM > 0 { refusals.append("\(refusedByFCM) refused: FCM cannot carry it") }
        if refusedUnreadable > 0 { refusals.append("\(refusedUnreadable) refused: record unreadable") }
        var parts = [
            "\(delivered) delivered",
            "\(failed) failed" + (refusals.isEmpty ? "" : " (" + refusals.joined(separator: "; ") + ")"),
            "\(pruned) pruned",
        ]
        if pruneFailures > 0 { parts.append("\(pruneFailures) not pruned (the registry could not be written)") }
        if unregisteredKept > 0 { parts.append("\(unregisteredKept) unregistered kept") }
        if skipped > 0 { parts.append("\(skipped) skipped") }
        if notTried > 0 { parts.append("\(notTried) not tried") }
        if unknown > 0 { parts.append("\(unknown) unknown (interrupted: APNs may have delivered them)") }
        let hundredths = Int((seconds * 100).rounded())
        let fraction = hundredths % 100
        return parts.joined(separator: ", ") + " in \(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }

    /// Whether `result` failed with the failure that stopped the run: the same kind of transport
    /// failure (libcurl's messages differ in timings), or the same provider-token refusal.
    private static func failed(_ result: DeliveryResult, by stop: DeliveryStop) -> Bool {
        guard result.outcome == .failed || result.outcome == .rejected else { return false }
        switch stop {
        case .transport(let kind, _): return result.status == 0 && result.transportFailure == kind
        case .credentials(let reason): return result.status == 403 && result.reason == reason.rawValue
        case .fcm(let status, let reason, _):
            return result.target.token.transport == .fcm && status != 0 && result.status == status
                && result.reason?.hasPrefix(reason) == true
        }
    }

    /// Appends `field` to `text`, then spaces up to `width` characters.
    private static func append(_ field: String, paddedTo width: Int, to text: inout String) {
        text += field
        let count = field.count
        if count < width { text += String(repeating: " ", count: width - count) }
    }
}
