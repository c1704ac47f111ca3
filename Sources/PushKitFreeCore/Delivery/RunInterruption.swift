import Synchronization

/// A request to end a run early (SIGINT, SIGTERM): recorded by a signal handler (an atomic store,
/// which is all a signal handler may do), read by the delivery between requests and by the
/// transport on every turn of its loop.
///
/// Once interrupted, nothing more is sent; the answers already on their way are waited for until
/// `cutoff` (`grace` after the run first noticed), and what is still in flight then is reported
/// as unknown (APNs may have delivered it).
package final class RunInterruption: Sendable {
    /// The process's one interruption, which its signal handlers record into.
    package static let process = RunInterruption()

    private let received = Atomic<Int32>(0)
    private let noticedCutoff = Mutex<ContinuousClock.Instant?>(nil)
    /// How long the answers in flight are waited for once the run notices.
    package let grace: Duration

    /// A run not interrupted yet, that waits `grace` for the answers in flight once it is.
    package init(grace: Duration = .seconds(2)) {
        self.grace = grace
    }

    /// Records `signal`; the first one recorded stays. Async-signal-safe.
    /// - Returns: whether a signal was recorded before.
    @discardableResult
    package func record(_ signal: Int32) -> Bool {
        !received.compareExchange(expected: 0, desired: signal, ordering: .relaxed).exchanged
    }

    /// The signal that interrupted the run; `nil` while none did.
    package var signal: Int32? {
        let value = received.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// When the answers in flight stop being waited for: `grace` after the first look that found
    /// the run interrupted; `nil` while it is not.
    package var cutoff: ContinuousClock.Instant? {
        guard signal != nil else { return nil }
        return noticedCutoff.withLock { cutoff in
            if cutoff == nil { cutoff = .now + grace }
            return cutoff
        }
    }
}
