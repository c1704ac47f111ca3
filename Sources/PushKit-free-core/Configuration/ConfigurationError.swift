/// A problem with the settings: a missing or malformed value, or an unreadable config file.
public struct ConfigurationError: PushKitError {
    public let message: String
    public let exitStatus: ExitStatus

    public init(_ message: String, exitStatus: ExitStatus = .configuration) {
        self.message = message
        self.exitStatus = exitStatus
    }

    public var description: String { message }
}
