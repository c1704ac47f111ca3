import PushKitFreeCore

/// Why the emulator cannot start: an unusable certificate, key or list file, or a port it cannot
/// listen on. Carries the sysexits status the tool exits with.
package struct EmulatorSetupError: PushKitError {
    package let message: String
    package let exitStatus: ExitStatus

    /// An error with a short, lowercase message naming the flag or file at fault.
    package init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    package var description: String { message }
}
