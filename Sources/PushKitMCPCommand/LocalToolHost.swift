import Dispatch
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeMCP
import PushKitFreeRegistry
import PushKitFreeTransport

/// The agent tools' registry, send pipeline and questions in `pushkit-mcp`: `PushSender`, as `send-push`
/// builds it, with sends run one at a time on a queue of their own (libcurl's event loop blocks
/// its thread, which must not be one of Swift's cooperative pool).
///
/// The libcurl client and the provider credentials are kept between sends, so an agent's second
/// notification reuses the connection to APNs and reads no key file.
final class LocalToolHost: AgentToolHost {
    private let sender: PushSender
    private let registry: any RegistryStore
    private let queue = DispatchQueue(label: "pushkit-mcp.delivery")
    private let state = DeliveryQueueState()
    private let tool: String
    /// Serve's question routes, when `endpoint` is configured.
    let questions: (any QuestionDesk)?

    /// The transport source and the loaded credentials: touched only on `queue`.
    private final class DeliveryQueueState: @unchecked Sendable {
        let transports = CurlTransportSource(keepsClient: true)
        var credentials: ProviderCredentials?
    }

    init(
        configuration: Configuration, notificationPolicy: NotificationPolicy, deliveryPolicy: DeliveryPolicy,
        questions: (any QuestionDesk)?, tool: String
    ) {
        registry = configuration.registry()
        sender = PushSender(
            configuration: configuration, notificationPolicy: notificationPolicy, deliveryPolicy: deliveryPolicy,
            transports: state.transports, devices: registry)
        self.tool = tool
        self.questions = questions
    }

    func registeredDevices() async throws -> [RegisteredDevice] {
        try await onQueue { [registry] in try registry.load().devices }
    }

    func send(
        _ spec: PushSpecification, urgency: Urgency?, to audience: PushSender.Audience
    ) async throws
        -> DeliveryReport
    {
        let prepared = try sender.prepare(spec, urgency: urgency, audience: audience)
        return try await onQueue { [self] in
            let warn: (String) -> Void = { [tool] in ToolSupport.warn($0, tool: tool) }
            return try sender.sendKeepingCredentials(prepared, credentials: &state.credentials, warn: warn)
        }
    }

    func describe(_ error: any Error) -> String {
        if let error = error as? any PushKitError { return ToolSupport.message(for: error) }
        return "unexpected error: \(error)"
    }

    /// Closes the kept connection; after the last send.
    func close() {
        queue.sync { state.transports.close() }
    }

    /// Runs `work` on the delivery queue and waits for it without holding a cooperative thread.
    private func onQueue<Answer: Sendable>(_ work: @escaping @Sendable () throws -> Answer) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }
}
