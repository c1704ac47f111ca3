/// Why no FCM access token could be had: the assertion could not be signed, or the token endpoint
/// refused it or gave an answer that is not a token.
package struct FCMAuthenticationError: PushKitError, Equatable {
    /// What is wrong, naming the token endpoint and the account (never a key or a token).
    package let message: String
    /// 78 when the endpoint refused the account (its credentials must change), 75 for an answer
    /// that may be different when asked again (5xx, 429), 69 for anything else it answered.
    package let exitStatus: ExitStatus

    /// An error with `message` and `exitStatus`.
    package init(_ message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The message.
    package var description: String { message }
}
