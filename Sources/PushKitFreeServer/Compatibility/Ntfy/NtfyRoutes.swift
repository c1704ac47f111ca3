#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// ntfy's publish protocol: `PUT`/`POST /<topic>` with the message as the body and its parameters
/// as headers or query parameters, and `PUT`/`POST /` with a JSON object naming the topic
/// (`NtfyMessage`). The topic names a device id or a group (`NotifierAudience`).
///
/// The answer is ntfy's message object; errors are ntfy's `{"code", "http", "error"}`
/// (`NtfyErrors`). A send APNs took for no device is 502.
///
/// This is not a design the project replaces but a protocol it speaks, so that ntfy's clients
/// (Apprise, Shoutrrr, Uptime Kuma, Home Assistant) can send to the app. Retirement: delete this
/// folder and its line in `EndpointRouter.make` (with Bark gone too, `Compatibility/Notifiers/`
/// and the notifier route group), its tests and its paths in docs/openapi.yaml.
struct NtfyRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender
    /// The server's routes, whose first segments no topic may be.
    let routes: RouteCatalogue

    /// The JSON form's path.
    static let jsonPath = "/"
    /// The topic's path.
    static let topicPath = "/{key}"

    /// Adds `/` and `/{key}` (the topic) to the notifier group (the secret, or HTTP Basic with it).
    func add(to groups: EndpointRouteGroups) {
        groups.answerErrors(in: NtfyErrors())
        groups.notifiers.post("/", use: publishJSON)
        groups.notifiers.put("/", use: publishJSON)
        groups.notifiers.post("{key}", use: publish)
        groups.notifiers.put("{key}", use: publish)
    }

    @Sendable func publish(_ request: Request, context: Context) async throws -> Response {
        let topic = try NotifierRequest.reservedCheck(
            request, parameter: context.parameters.get("key"), routes: routes)
        let message = try NtfyMessage(
            topic: topic, body: try await request.bodyBytes(), parameters: NotifierRequest.parameters(request),
            reservedNames: routes.reservedNames)
        return try await send(message)
    }

    @Sendable func publishJSON(_ request: Request, context: Context) async throws -> Response {
        let message = try NtfyMessage(
            json: try await request.jsonBody(), parameters: NotifierRequest.parameters(request),
            reservedNames: routes.reservedNames)
        return try await send(message)
    }

    private func send(_ message: NtfyMessage) async throws -> Response {
        let audience = try NotifierAudience.audience([message.topic], in: try registrations.read(), what: "topic")
        let report = try await sender.send(
            message.specification(criticalAlerts: sender.criticalAlerts), to: audience)
        if let failure = NotifierAudience.failure(of: report) { throw failure }
        return .json(
            message.answer(
                id: NtfyMessage.makeID(), time: Date(), devices: report.results.count,
                deliveredTo: EndpointJSON.deliveredTo(report)))
    }
}
