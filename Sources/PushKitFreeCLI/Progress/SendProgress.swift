#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// What `send-push` shows while a fan-out runs, fed by the delivery as each device is done.
///
/// - Each device's line goes to standard output as soon as its answer is final, written in
///   batches a tenth of a second apart at most (a fan-out of 10,000 devices would otherwise make
///   10,000 writes). Lines that need the registry's bookkeeping (a 410, which is pruned; a first
///   delivery, which records the environment) wait for it and come with the report, as do the
///   failures that may turn out to be the same for every device (TLS, connect, a refused provider
///   token), which the report then gives once.
/// - When standard error is a terminal, a status line there shows how many devices are done of
///   how many, the rate and the time left, redrawn ten times a second and erased before device
///   lines are written and at the end. Nothing of it reaches a pipe or a file.
///
/// Everything runs on the delivery's thread: `finished` as devices finish, `tick` on every turn
/// of the transport's loop (at least ten times a second while it waits on the network), which
/// writes what is due. No thread of its own: the file-system fault tests inject failures into every
/// system call a tool makes, which libdispatch's timer thread treats as fatal.
package final class SendProgress {
    private struct State {
        var done = 0
        var pending = ""
        var statusVisible = false
        var printed: Set<Int> = []
        var lastFlush = ContinuousClock.now
        var lastDraw: ContinuousClock.Instant?
    }

    private let total: Int
    /// The width of the device id column, for the report's lines to match the streamed ones.
    package let idWidth: Int
    private let fullTokens: Bool
    private let streamsLines: Bool
    private let showsStatus: Bool
    private let interruption: RunInterruption?
    private let started = ContinuousClock.now
    private var state = State()

    /// The devices whose line was written: the report leaves them out.
    package var printed: Set<Int> { state.printed }

    /// - Parameters:
    ///   - targets: the devices of the run, for the count and the id column's width.
    ///   - streamsLines: whether device lines are written as devices finish (the text report);
    ///     `false` for JSON and hooks, whose output comes whole at the end.
    ///   - showsStatus: whether to draw the status line; it is drawn only when standard error is a
    ///     terminal all the same.
    ///   - interruption: the run's; once it is interrupted the status line gives no time left, as
    ///     nothing more is sent.
    package init(
        targets: [DeliveryTarget], fullTokens: Bool, streamsLines: Bool, showsStatus: Bool,
        interruption: RunInterruption? = nil
    ) {
        total = targets.count
        idWidth = DeliveryReport.idWidth(of: targets)
        self.fullTokens = fullTokens
        self.streamsLines = streamsLines
        self.showsStatus = showsStatus && isatty(2) == 1
        self.interruption = interruption
    }

    /// Notes that the device at `index` is done with `result`, before the registry's bookkeeping.
    package func finished(_ index: Int, _ result: DeliveryResult) {
        let streams = streamsLines && !Self.waitsForReport(result)
        var line = ""
        if streams { DeliveryReport.appendLine(of: result, idWidth: idWidth, fullTokens: fullTokens, to: &line) }
        state.done += 1
        if streams {
            state.pending += line
            state.printed.insert(index)
        }
    }

    /// Writes the lines not written yet and erases the status line: call before the report.
    package func finish() {
        write(drawing: false)
    }

    /// Writes the lines due (a tenth of a second after the last write) and redraws the status line
    /// (at most ten times a second).
    package func tick() {
        let now = ContinuousClock.now
        let flushDue = !state.pending.isEmpty && now - state.lastFlush >= .milliseconds(100)
        let drawDue = showsStatus && (state.lastDraw.map { now - $0 >= .milliseconds(100) } ?? true)
        guard flushDue || drawDue else { return }
        state.lastFlush = now
        if drawDue { state.lastDraw = now }
        write(drawing: drawDue)
    }

    /// Whether `result`'s line waits for the report: see the type's notes.
    static func waitsForReport(_ result: DeliveryResult) -> Bool {
        switch result.outcome {
        case .unregistered:
            return true
        case .delivered:
            return result.target.token.transport == .apns && result.target.recordedEnvironment == nil
                && result.target.deviceID != nil
        case .failed where result.status == 0:
            return result.transportFailure == .tls || result.transportFailure == .connect
        case .rejected where result.target.token.transport == .fcm:
            // The refusals that can stop sending to FCM, reported once with the fix.
            return [FCMReason.thirdPartyAuthError, .permissionDenied, .unauthenticated].contains {
                result.reason?.hasPrefix($0.rawValue) == true
            }
        case .rejected:
            return result.reason == APNsReason.invalidProviderToken.rawValue
                || result.reason == APNsReason.expiredProviderToken.rawValue
        default:
            return false
        }
    }

    /// Writes the pending lines (the status line erased first), then, when `drawing`, the status line.
    private func write(drawing: Bool) {
        if !state.pending.isEmpty || !drawing, state.statusVisible {
            StandardStreams.clearStatusLine()
            state.statusVisible = false
        }
        if !state.pending.isEmpty {
            StandardStreams.writeOutput(state.pending)
            state.pending = ""
        }
        guard drawing else { return }
        StandardStreams.writeStatusLine("send-push: " + status(done: state.done))
        state.statusVisible = true
    }

    /// "120 of 10000 done, 2400/s, about 4 s left"; once interrupted, "120 of 10000 done, interrupted:
    /// waiting for the answers on their way".
    private func status(done: Int) -> String {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var text = "\(done) of \(total) done"
        if interruption?.signal != nil {
            text += ", interrupted: waiting for the answers on their way"
        } else if seconds >= 0.5, done > 0 {
            let rate = Double(done) / seconds
            text += ", \(Int(rate.rounded()))/s"
            if done < total { text += ", about \(Int((Double(total - done) / rate).rounded(.up))) s left" }
        }
        return text
    }
}
