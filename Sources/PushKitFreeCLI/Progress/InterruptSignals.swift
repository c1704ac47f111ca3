import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// SIGINT and SIGTERM during a send: the first interrupts the run (`RunInterruption`: nothing more
/// is sent, the answers in flight are waited for `grace`, then the report and push.log say what
/// happened); a second one ends the process at once. The exit status is then 128 plus the
/// signal's number, as a shell reports a process the signal ended (130, 143).
package final class InterruptSignals {
    /// How long the answers in flight are waited for after the first signal.
    package static let grace: Duration = .seconds(2)

    private let sources: [any DispatchSourceSignal]

    /// Watches SIGINT and SIGTERM for `interruption` until `stop()`; `announce` is told (on
    /// another thread) when the first one arrives.
    package init(_ interruption: RunInterruption, announce: @escaping @Sendable (Int32) -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if interruption.signal != nil { _exit(128 + number) }
                interruption.interrupt(signal: number, grace: Self.grace)
                announce(number)
            }
            source.resume()
            return source
        }
    }

    /// Stops watching; the signals' default actions apply again.
    package func stop() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// `SIGINT` or `SIGTERM`, for a message.
    package static func name(of signal: Int32) -> String { signal == SIGINT ? "SIGINT" : "SIGTERM" }

    /// The exit status after the run was interrupted by `signal`.
    package static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }
}
