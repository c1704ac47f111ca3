import Hummingbird
import PushKitFreeCore

/// The gateway's webhooks, under `/hooks`: `ios-device` registers or unregisters a device (its
/// `action`), `ios-notify` sends to every device.
struct GatewayHookRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let service: EndpointService

    /// Adds the routes to a group at `/hooks`.
    func add(to group: RouterGroup<Context>) {
        group.post("ios-device", use: deviceHook)
        group.post("ios-notify", use: notifyHook)
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
            let registration = try EndpointService.registration(body)
            context.notes.token = registration.token
            let outcome = try await service.register(registration, route: .deviceHook)
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
            try await unregisterIfPresent(token, notes: context.notes)
            return .json(["status": "unregistered"])
        case let other?:
            throw EndpointError.badRequest("\"action\" must be register or unregister, not \"\(other)\"")
        case nil:
            throw EndpointError.badRequest("\"action\" is missing: register or unregister")
        }
    }

    @Sendable func notifyHook(_ request: Request, context: Context) async throws -> Response {
        let notification = try NotificationRequestBody(Self.titled(try await request.jsonBody()))
        let report = try await service.sendToAll(notification.specification(.openClawGateway))
        return .json(["status": "sent", "devices_notified": .number(Double(report.delivered))])
    }

    /// The hook's body with the title `OpenClaw` when it has none (`PayloadProfile.openClawGateway`).
    static func titled(_ json: JSONValue) -> JSONValue {
        guard var members = json.objectValue else { return json }
        switch members["title"] {
        case nil, .null?, .string("")?: break
        default: return json // a title, or a member of the wrong type for the body's reader to refuse
        }
        members["title"] = .string(PayloadProfile.openClawGateway.title ?? "OpenClaw")
        return .object(members)
    }

    /// Removes the device `token` names, when there is one.
    private func unregisterIfPresent(_ token: String, notes: RequestNotes) async throws(EndpointError) {
        do {
            _ = try await service.unregister(token, route: .deviceHook, notes: notes)
        } catch {
            guard error.status == .notFound else { throw error }
        }
    }
}
