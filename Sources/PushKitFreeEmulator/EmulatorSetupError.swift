import PushKitFreeCore

/// Why the emulator cannot start: an unusable certificate, key or list file, or a port it cannot
/// listen on. Carries the sysexits status the tool exits with.
public struct EmulatorSetupError: PushKitError {
    public let message: String
    public let exitStatus: ExitStatus

    /// An error with a short, lowercase message naming the flag or file at fault.
    public init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    public var description: String { message }
}
