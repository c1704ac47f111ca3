/// A delivery-policy setting that cannot be used (quiet hours, frequency cap, urgency map): exit 78,
/// or 64 when it came from a flag.
public struct PolicyError: PushKitError {
    public let message: String
    public let exitStatus: ExitStatus

    public init(_ message: String, exitStatus: ExitStatus = .configuration) {
        self.message = message
        self.exitStatus = exitStatus
    }

    public var description: String { message }
}
