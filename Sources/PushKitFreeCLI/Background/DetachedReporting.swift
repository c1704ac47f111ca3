#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Where a send that may deliver from a background process (`send-push --detach`, `--hook`) says
/// what happened. Until it detaches, a warning goes to standard error at once. Once detached, the
/// terminal is gone: warnings are kept and written to push.log together with the outcome, one
/// record per device, or with the error that ended the delivery.
package final class DetachedReporting {
    /// push.log in the state directory.
    package let log: PushLog
    /// The legacy form's MESSAGE_ID, recorded with every line.
    package let messageID: String?
    /// Whether the process is the detached child now.
    package private(set) var detached = false
    private var warnings: [JSONValue] = []
    private let writeWarning: (String) -> Void
    private let clock: () -> Date

    /// - Parameters:
    ///   - writeWarning: how a warning reaches the user before detaching (standard error).
    ///   - clock: the time records are stamped with.
    package init(
        log: PushLog, messageID: String?, writeWarning: @escaping (String) -> Void,
        clock: @escaping () -> Date = { Date() }
    ) {
        self.log = log
        self.messageID = messageID
        self.writeWarning = writeWarning
        self.clock = clock
    }

    /// A non-fatal problem: to the user, or once detached to the log with the outcome.
    package func warn(_ message: String) {
        guard detached else { return writeWarning(message) }
        warnings.append(PushLog.noteRecord(outcome: "warning", message, at: clock(), messageID: messageID))
    }

    /// Called in the child once the process has detached.
    package func didDetach() {
        detached = true
    }

    /// The delivery's outcome, after detaching: the warnings, then one record per device.
    package func delivered(_ report: DeliveryReport) {
        try? log.append(warnings + PushLog.records(of: report, at: clock(), messageID: messageID))
        warnings = []
    }

    /// The error that ended the delivery after detaching: the warnings, then the error with the exit
    /// status it would have had (70 for one that names none). Nothing else reports it: the parent
    /// has exited.
    package func failed(_ error: any Error, message: String) {
        let status = (error as? any PushKitError)?.exitStatus.rawValue ?? 70
        try? log.append(
            warnings + [PushLog.errorRecord(message, exitStatus: status, at: clock(), messageID: messageID)])
        warnings = []
    }
}
