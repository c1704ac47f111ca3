/// Why the provider key (`.p8`) or the identifiers that go with it cannot be used.
package struct ProviderKeyError: PushKitError {
    /// What is wrong, naming the key file and the setting that named it.
    package let message: String
    /// 66 for a key file that is missing or unreadable, 78 for one that is not a usable key.
    package let exitStatus: ExitStatus

    /// An error with `message` and `exitStatus`.
    package init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The message.
    package var description: String { message }
}
