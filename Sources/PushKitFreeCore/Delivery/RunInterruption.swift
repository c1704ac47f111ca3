import Synchronization

/// A request to end a run early (SIGINT, SIGTERM), set from the thread that caught the signal and
/// read by the delivery between requests and by the transport between turns of its loop.
///
/// Once interrupted, nothing more is sent; the answers already on their way are waited for until
/// `cutoff`, and what is still in flight then is reported as unknown (APNs may have delivered it).
package final class RunInterruption: Sendable {
    private let state = Mutex<(signal: Int32, cutoff: ContinuousClock.Instant)?>(nil)

    /// A run not interrupted yet.
    package init() {}

    /// Interrupts the run for `signal`, waiting `grace` for the answers in flight; a second call
    /// changes nothing.
    package func interrupt(signal: Int32, grace: Duration) {
        state.withLock { state in
            if state == nil { state = (signal, .now + grace) }
        }
    }

    /// The signal that interrupted the run; `nil` while it was not.
    package var signal: Int32? { state.withLock { $0?.signal } }

    /// When the answers in flight stop being waited for; `nil` while the run was not interrupted.
    package var cutoff: ContinuousClock.Instant? { state.withLock { $0?.cutoff } }
}
