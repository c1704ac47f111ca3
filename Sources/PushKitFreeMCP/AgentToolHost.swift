import PushKitFreeCore
import PushKitFreeRegistry

/// What the agent tools need from the program that serves them: the registry's devices, the one
/// send pipeline (`PushSender`) to send through, and where questions are asked.
///
/// `pushkit-mcp` sends on a thread of its own; `register-apns serve` hands its sends to its
/// delivery thread. Neither blocks Swift's cooperative pool for the length of a send.
package protocol AgentToolHost: Sendable {
    /// The registered devices, as the registry holds them now.
    func registeredDevices() async throws -> [RegisteredDevice]

    /// Sends `spec` with `urgency` to `audience` through `PushSender` (policy, retries, pruning).
    /// - Returns: the report; no results when the audience holds no device.
    func send(
        _ spec: PushSpecification, urgency: Urgency?, to audience: PushSender.Audience
    ) async throws
        -> DeliveryReport

    /// `error`, thrown by one of the above, in words an agent can relay: no secret, no key, no token.
    func describe(_ error: any Error) -> String

    /// Where questions are asked (`ask`, `wait_for_answer`, `cancel_question`); `nil` when this
    /// program has none configured, and the question tools then say how to configure it.
    var questions: (any QuestionDesk)? { get }
}
