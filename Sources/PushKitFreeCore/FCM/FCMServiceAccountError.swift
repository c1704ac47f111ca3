/// Why the Firebase service account file cannot be used: missing, unreadable, not JSON, or a field
/// missing or wrong. Messages name the file and the field, never the key.
package struct FCMServiceAccountError: PushKitError, Equatable {
    /// What is wrong, naming the file, the setting that named it and the field at fault.
    package let message: String
    /// 66 for a file that is missing or unreadable, 78 for one that is not a usable service account.
    package let exitStatus: ExitStatus

    /// An error with `message` and `exitStatus`.
    package init(_ message: String, exitStatus: ExitStatus = .configuration) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The message.
    package var description: String { message }
}
