import PushKitFreeCore
import PushKitFreeMCP
import PushKitFreeRegistry

/// The agent tools' registry and send pipeline in `register-apns serve`: the registry the other
/// routes read, and the delivery thread every send route uses (`EndpointDelivery`), so a send for
/// an agent keeps the one connection to APNs and never blocks the server's event loops.
struct EndpointToolHost: AgentToolHost {
    let registrations: DeviceRegistrations
    let sender: NotificationSender
    /// The request's id, for the log line of an error whose detail the agent is not shown.
    let requestID: String
    /// The endpoint's questions, in process.
    let questions: (any QuestionDesk)?

    func registeredDevices() async throws -> [RegisteredDevice] {
        try registrations.read().devices
    }

    func send(
        _ spec: PushSpecification, urgency: Urgency?, to audience: PushSender.Audience
    ) async throws
        -> DeliveryReport
    {
        try await sender.send(spec, urgency: urgency, to: audience)
    }

    /// Questions are not offered at /mcp yet.

    /// An `EndpointError`'s message, as an HTTP client would read it (no path, no key); its detail
    /// goes to the server's log with the request id.
    func describe(_ error: any Error) -> String {
        guard let error = error as? EndpointError else {
            StandardStreams.writeError(
                "\(EndpointServer.tool): error: request \(requestID): POST /mcp: unexpected error: \(error)\n")
            return "the server failed to answer (request \(requestID))"
        }
        if let detail = error.logDetail {
            StandardStreams.writeError(
                "\(EndpointServer.tool): error: request \(requestID): POST /mcp: \(error.message): \(detail)\n")
        }
        return error.message
    }
}
