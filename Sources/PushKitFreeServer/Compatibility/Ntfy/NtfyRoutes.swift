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
/// (`NtfyMessage`), or `PUT /<topic>/<sequence_id>` with the sequence id in the path. The topic
/// names a device id or a group (`NotifierAudience`).
///
/// A message's notification is taken back with ntfy's `PUT /<topic>/<sequence_id>/clear` (or
/// `/read`) and `DELETE /<topic>/<sequence_id>`: a withdrawal (`PushSpecification.withdrawal(of:)`)
/// of the collapse id the message was sent with (`NtfyMessage.collapseID(topic:sequenceID:)`) to
/// the topic's devices. ntfy's `POST /<topic>/<sequence_id>` is Bark's `POST /:key/:body`, and its
/// `GET /<topic>/<sequence_id>/clear` and `/delete` Bark's `GET /:key/:title/:body`: those stay
/// Bark's, so ntfy's clients publish with a sequence id by `PUT` or the header.
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
    /// A message's path: `PUT` publishes with the sequence id, `DELETE` deletes (Bark's path form
    /// `/:key/:body` for `GET` and `POST`, hence the names).
    static let sequencePath = "/{key}/{first}"
    /// A message's clear path, `PUT /<topic>/<sequence_id>/clear` or `/read` (Bark's path form
    /// `/:key/:title/:body` for `GET` and `POST`).
    static let clearPath = "/{key}/{first}/{second}"
    /// The last segments of `clearPath` that clear: ntfy's `clear` and its alias `read`.
    static let clearActions: Set<String> = ["clear", "read"]

    /// Adds `/` and `/{key}` (the topic) to the notifier group (the secret, or HTTP Basic with it).
    func add(to groups: EndpointRouteGroups) {
        groups.answerErrors(in: NtfyErrors())
        groups.notifiers.post("/", use: publishJSON)
        groups.notifiers.put("/", use: publishJSON)
        groups.notifiers.post("{key}", use: publish)
        groups.notifiers.put("{key}", use: publish)
        groups.notifiers.put(RouterPath(Self.sequencePath), use: publish)
        groups.notifiers.delete(RouterPath(Self.sequencePath), use: delete)
        groups.notifiers.put(RouterPath(Self.clearPath), use: clear)
    }

    @Sendable func publish(_ request: Request, context: Context) async throws -> Response {
        let topic = try NotifierRequest.reservedCheck(
            request, parameter: context.parameters.get("key"), routes: routes)
        let sequenceID = context.parameters.get("first").map { RouteCatalogue.percentDecoded(Substring($0)) }
        let message = try NtfyMessage(
            topic: topic, sequenceID: sequenceID, body: try await request.bodyBytes(),
            parameters: NotifierRequest.parameters(request), reservedNames: routes.reservedNames)
        return try await send(message)
    }

    @Sendable func clear(_ request: Request, context: Context) async throws -> Response {
        let topic = try NotifierRequest.reservedCheck(
            request, parameter: context.parameters.get("key"), routes: routes)
        let action = RouteCatalogue.percentDecoded(Substring(context.parameters.get("second") ?? ""))
        guard Self.clearActions.contains(action) else {
            throw EndpointError.notFound(
                "no route PUT \(request.uri.path); ntfy's clear is PUT /<topic>/<sequence_id>/clear (or /read)")
        }
        return try await withdraw(.clear, topic: topic, sequenceID: context.parameters.get("first"))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let topic = try NotifierRequest.reservedCheck(
            request, parameter: context.parameters.get("key"), routes: routes)
        return try await withdraw(.delete, topic: topic, sequenceID: context.parameters.get("first"))
    }

    /// Takes back the notification of `topic`'s message `sequenceID` (percent-encoded, as the path
    /// holds it) on the topic's devices, and answers ntfy's `event` message.
    private func withdraw(
        _ event: NtfyMessage.Withdrawal, topic: String, sequenceID encoded: String?
    ) async throws -> Response {
        try NotifierAudience.validate(topic, as: "topic", reservedNames: routes.reservedNames)
        let sequenceID = RouteCatalogue.percentDecoded(Substring(encoded ?? ""))
        try NtfyMessage.checkSequenceID(sequenceID)
        let audience = try NotifierAudience.audience([topic], in: try registrations.read(), what: "topic")
        let spec = PushSpecification.withdrawal(of: NtfyMessage.collapseID(topic: topic, sequenceID: sequenceID))
        let report = try await sender.send(spec, to: audience)
        if let failure = NotifierAudience.failure(of: report) { throw failure }
        return .json(
            NtfyMessage.withdrawalAnswer(
                event, id: NtfyMessage.makeID(), time: Date(), topic: topic, sequenceID: sequenceID,
                devices: report.results.count, deliveredTo: EndpointJSON.deliveredTo(report)))
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
                id: message.id, time: Date(), devices: report.results.count,
                deliveredTo: EndpointJSON.deliveredTo(report)))
    }
}
