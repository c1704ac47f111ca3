/// Why the provider key (`.p8`) or the identifiers that go with it cannot be used.
package struct ProviderKeyError: PushKitError {
    package let message: String
    package let exitStatus: ExitStatus

    package init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    package var description: String { message }
}
