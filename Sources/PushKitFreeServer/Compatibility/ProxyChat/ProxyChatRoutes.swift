import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// The proxy-chat design's routes (`../shared/seeds/004_dccb6f15a6221d21.txt`):
/// `/registerSubscription` subscribes a device to one agent's replies, `/triggerReplyFinished`
/// tells its subscribers a reply is ready (`AgentSubscription`).
///
/// Retirement: the subscriptions are groups (`send-push --group <agent key>` reaches the same
/// devices), so once the app registers with `POST /register-apns` and `groups`, delete this folder,
/// its line in `EndpointRouter.make`, the `proxy-chat-*` golden fixtures and its paths in
/// docs/openapi.yaml; the registry's `agents` member
/// (`RegisteredDevices+Agents.swift`) can then go too, or stay as names for the groups.
struct ProxyChatRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender
    /// The secret's hash for `/triggerReplyFinished`'s notifications (`SharedSecret.serverKey`).
    let serverKey: String?

    func add(to groups: EndpointRouteGroups) {
        groups.registration.post("registerSubscription", use: registerSubscription)
        groups.guarded.post("triggerReplyFinished", use: triggerReplyFinished)
    }

    @Sendable func registerSubscription(_ request: Request, context: Context) async throws -> Response {
        let subscription = try AgentSubscription.Request(try await request.jsonBody())
        context.notes.token = subscription.registration.token
        let trusted = !context.openNetwork
        _ = try await registrations.register(route: context.routeLabel) { devices, now throws(RegistryError) in
            try subscription.apply(to: &devices, at: now, trusted: trusted)
        }
        return .json([
            "status": "subscribed", "agent": .string(subscription.agentKey),
            "device_id": .string(subscription.registration.deviceID),
        ])
    }

    @Sendable func triggerReplyFinished(_ request: Request, context: Context) async throws -> Response {
        let reply = try AgentSubscription.ReplyFinished(try await request.jsonBody())
        let agent = reply.agentKey
        let displayName = AgentSubscription.displayName(agentKey: agent, in: try registrations.read())
        let spec = reply.specification(displayName: displayName, serverKey: serverKey)
        let report = try await sender.send(spec, to: PushSender.Audience(groups: [agent]))
        return .json([
            "status": "sent", "agent": .string(agent), "devices_notified": .number(Double(report.delivered)),
            "delivered_to": .array(EndpointJSON.deliveredTo(report).map(JSONValue.string)),
        ])
    }
}
