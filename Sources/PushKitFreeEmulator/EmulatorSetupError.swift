import PushKitFreeCore

/// Why the emulator cannot start: an unusable certificate, key or list file, or a port it cannot
/// listen on. Carries the sysexits status the tool exits with.
package struct EmulatorSetupError: PushKitError {
    /// Short and lowercase, naming the flag or file at fault.
    package let message: String
    /// 66 for a file it cannot read, 78 for an unusable certificate or key, 69 for a port it cannot listen on.
    package let exitStatus: ExitStatus

    /// An error with a short, lowercase message naming the flag or file at fault.
    package init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The message.
    package var description: String { message }
}
