/// A failure to read, lock, create or replace a file, naming the path and the system's reason.
public struct FileSystemError: PushKitError {
    /// What was being done, e.g. "cannot create directory".
    public let action: String
    /// The file or directory at fault.
    public let path: String
    /// `strerror` text for the failing call.
    public let reason: String
    public let exitStatus: ExitStatus

    /// - Parameter detail: said after the system's reason, when that alone would mislead.
    public init(
        _ action: String, path: String, errno code: Int32, exitStatus: ExitStatus = .ioError, detail: String? = nil
    ) {
        self.action = action
        self.path = path
        self.reason = PosixFile.describe(errno: code) + (detail.map { " (\($0))" } ?? "")
        self.exitStatus = exitStatus
    }

    /// A refusal that is no system call's failure: `reason` says what is wrong with `path` (exit 78).
    public init(refusing reason: String, path: String, action: String = "refusing to write in") {
        self.action = action
        self.path = path
        self.reason = reason
        self.exitStatus = .configuration
    }

    public var description: String { "\(action) \(path): \(reason)" }
}
