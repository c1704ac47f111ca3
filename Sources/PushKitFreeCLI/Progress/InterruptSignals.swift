#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// SIGINT and SIGTERM during a send: the first is recorded (`RunInterruption.process`: nothing more
/// is sent, the answers in flight are waited for a moment, then the report and push.log say what
/// happened); a second one ends the process at once. The exit status is then 128 plus the signal's
/// number, as a shell reports a process the signal ended (130, 143).
///
/// Plain `sigaction` handlers that do one atomic store (or `_exit`): no thread of libdispatch's,
/// whose internals treat a failed system call as fatal (the file-system fault tests inject such
/// failures into every call a tool makes).
package enum InterruptSignals {
    /// Installs the handlers for `RunInterruption.process`, and unblocks the two signals: a process
    /// inherits its parent's blocked signals, and a parent that blocks them (some supervisors and
    /// test runners do) would leave them pending, never delivered.
    package static func watch() {
        _ = RunInterruption.process // made before a handler can need it
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = handle
            #else
            action.__sigaction_u.__sa_handler = handle
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
            sigaddset(&signals, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Restores the default actions.
    package static func stop() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// `SIGINT` or `SIGTERM`, for a message.
    package static func name(of signal: Int32) -> String { signal == SIGINT ? "SIGINT" : "SIGTERM" }

    /// The exit status after the run was interrupted by `signal`.
    package static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }
}

/// The handler: the first signal is recorded, a second one ends the process.
private func handle(_ number: Int32) {
    if RunInterruption.process.record(number) { _exit(128 + number) }
}
