/// A failure to read, lock, create or replace a file, naming the path and the system's reason.
public struct FileSystemError: PushKitError {
    /// What was being done, e.g. "cannot create directory".
    public let action: String
    /// The file or directory at fault.
    public let path: String
    /// `strerror` text for the failing call.
    public let reason: String
    public let exitStatus: ExitStatus

    public init(_ action: String, path: String, errno code: Int32, exitStatus: ExitStatus = .ioError) {
        self.action = action
        self.path = path
        self.reason = PosixFile.describe(errno: code)
        self.exitStatus = exitStatus
    }

    public var description: String { "\(action) \(path): \(reason)" }
}
