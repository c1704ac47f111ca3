import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// The OpenClaw gateway extension's webhooks (`../shared/seeds/001_6ebd873e89ee42e8.txt`), under
/// `/hooks`: `ios-device` registers or unregisters a device (its `action`), `ios-notify` sends to
/// every device.
///
/// Retirement: once no OpenClaw gateway extension calls these (its app registers with
/// `POST /register-apns`, its callers send with `send-push` or `/api/v1`), delete this folder, its
/// line in `EndpointRouter.make`, its golden fixtures (`openclaw-gateway-*`) and its paths in
/// docs/openapi.yaml.
struct GatewayHookRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender

    /// Adds the routes under `/hooks`. `ios-device` is a registration route: its `unregister` action
    /// needs the secret all the same (`deviceHook`).
    func add(to groups: EndpointRouteGroups) {
        groups.registration.group("hooks").post("ios-device", use: deviceHook)
        groups.guarded.group("hooks").post("ios-notify", use: notifyHook)
    }

    @Sendable func deviceHook(_ request: Request, context: Context) async throws -> Response {
        let body = try await request.jsonBody()
        guard let object = body.objectValue else {
            throw EndpointError.badRequest("expected a JSON object, not \(body.typeName)")
        }
        let fields = RequestBodyFields(object)
        let action: String?
        do throws(RegistrationBodyError) {
            action = try fields.string("action")
        } catch {
            throw EndpointError(error)
        }
        switch action {
        case "register"?:
            let registration = try DeviceRegistrations.registration(body)
            context.notes.token = registration.token
            let outcome = try await registrations.register(registration, route: context.routeLabel)
            return .json(["status": "registered", "device": EndpointJSON.device(outcome.device)])
        case "unregister"?:
            if context.openNetwork {
                throw EndpointError.unauthorized(
                    "unregistering needs the secret: --open-registration lets only registrations in without it")
            }
            let token: String?
            do throws(RegistrationBodyError) {
                token = try fields.string("apns_token", "device_token")
            } catch {
                throw EndpointError(error)
            }
            guard let token, !token.isEmpty else { throw EndpointError.badRequest("\"device_token\" is missing") }
            // The gateway's notifier deletes from its map and answers the same whether it was there.
            try await unregisterIfPresent(token, route: context.routeLabel, notes: context.notes)
            return .json(["status": "unregistered"])
        case let other?:
            throw EndpointError.badRequest("\"action\" must be register or unregister, not \"\(other)\"")
        case nil:
            throw EndpointError.badRequest("\"action\" is missing: register or unregister")
        }
    }

    @Sendable func notifyHook(_ request: Request, context: Context) async throws -> Response {
        let notification = try NotificationRequestBody(try await request.jsonBody(), profile: .openClawGateway)
        let report = try await sender.send(notification.specification, urgency: notification.urgency)
        return .json([
            "status": "sent", "devices_notified": .number(Double(report.delivered)),
            "delivered_to": .array(EndpointJSON.deliveredTo(report).map(JSONValue.string)),
        ])
    }

    /// Removes the device `token` names, when there is one.
    private func unregisterIfPresent(_ token: String, route: String, notes: RequestNotes) async throws(EndpointError) {
        do {
            _ = try await registrations.unregister(token, route: route, notes: notes)
        } catch {
            guard error.status == .notFound else { throw error }
        }
    }
}
