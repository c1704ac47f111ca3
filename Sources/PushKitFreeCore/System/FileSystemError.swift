/// A failure to read, lock, create or replace a file, naming the path and the system's reason.
package struct FileSystemError: PushKitError {
    /// What was being done, e.g. "cannot create directory".
    package let action: String
    /// The file or directory at fault.
    package let path: String
    /// `strerror` text for the failing call.
    package private(set) var reason: String
    /// 74 unless given otherwise (73 for a file that cannot be created); 78 for a refusal.
    package let exitStatus: ExitStatus

    /// - Parameter detail: said after the system's reason, when that alone would mislead.
    package init(
        _ action: String, path: String, errno code: Int32, exitStatus: ExitStatus = .ioError, detail: String? = nil
    ) {
        self.action = action
        self.path = path
        self.reason = PosixFile.describe(errno: code) + (detail.map { " (\($0))" } ?? "")
        self.exitStatus = exitStatus
    }

    /// A refusal that is no system call's failure: `reason` says what is wrong with `path` (exit 78).
    package init(refusing reason: String, path: String, action: String = "refusing to write in") {
        self.action = action
        self.path = path
        self.reason = reason
        self.exitStatus = .configuration
    }

    /// `action path: reason`, e.g. "cannot create directory /x: Permission denied".
    package var description: String { "\(action) \(path): \(reason)" }

    /// The same failure, its reason followed by `context` in parentheses (which setting chose the path).
    package func adding(_ context: String) -> FileSystemError {
        var copy = self
        copy.reason += " (\(context))"
        return copy
    }
}
