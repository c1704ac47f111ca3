/// Why the provider key (`.p8`) or the identifiers that go with it cannot be used.
public struct ProviderKeyError: PushKitError {
    public let message: String
    public let exitStatus: ExitStatus

    public init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    public var description: String { message }
}
