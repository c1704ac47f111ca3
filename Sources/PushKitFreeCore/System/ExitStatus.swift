/// Process exit statuses, following BSD `sysexits.h` so shell callers and cron can tell failures apart.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Everything asked for was done.
    case success = 0
    /// Some of a batch failed (for example some devices were not delivered to).
    case partialFailure = 1
    /// A question (`ask-push`) expired: nobody answered it before its timeout. Never a "yes".
    case expired = 2
    /// A question (`ask-push`) was cancelled before anyone answered it (`DELETE /v1/questions/{id}`,
    /// or its push reached no device).
    case cancelled = 3
    /// The command was used incorrectly: unknown flag, missing argument, conflicting options.
    case usage = 64
    /// Input data was malformed: a bad token, a state file that is not JSON, an oversized payload.
    case dataError = 65
    /// An input file did not exist or was not readable.
    case noInput = 66
    /// A service the tool needs is unreachable.
    case unavailable = 69
    /// The operating system refused something the tool needs, e.g. a new process (`fork`).
    case osError = 71
    /// A file that had to be created could not be.
    case cannotCreate = 73
    /// Reading or writing a file failed.
    case ioError = 74
    /// A temporary failure; trying again later may work.
    case temporaryFailure = 75
    /// The configuration is incomplete or wrong.
    case configuration = 78
}

/// An error the tools report to a user: a short, lowercase message that names the flag, variable or file
/// at fault, and the exit status it maps to.
package protocol PushKitError: Error, CustomStringConvertible, Sendable {
    /// The process exit status for this error.
    var exitStatus: ExitStatus { get }
}
