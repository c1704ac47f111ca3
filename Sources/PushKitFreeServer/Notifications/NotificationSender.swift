import PushKitFreeCore
import PushKitFreeRegistry

/// Sending as the routes use it: through the delivery service (`EndpointDelivery`, the core's one
/// send pipeline), each report counted in the metrics.
struct NotificationSender: Sendable {
    let delivery: EndpointDelivery
    let metrics: EndpointMetrics

    /// Whether the config allows critical alerts (`critical_alerts`): a protocol whose highest
    /// priority may mean one (ntfy's 5) sends it only then.
    var criticalAlerts: Bool { delivery.sender.notificationPolicy.criticalAlerts }

    /// Sends `spec` with `urgency` to `audience` (every device by default); see
    /// `EndpointDelivery.send` for the errors.
    func send(
        _ spec: PushSpecification, urgency: Urgency? = nil, to audience: PushSender.Audience = .everyDevice
    ) async throws(EndpointError) -> DeliveryReport {
        let report = try await delivery.send(spec, urgency: urgency, to: audience)
        metrics.delivered(report)
        return report
    }
}
