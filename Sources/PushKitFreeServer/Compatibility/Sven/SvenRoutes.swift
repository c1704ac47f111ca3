import Hummingbird
import PushKitFreeRegistry

/// The Sven design's registration route (`../shared/seeds/003_70db483b5e670bd4.txt`):
/// `POST /register-apns` with a JSON body, or with `device_token` and `apns_token` in the query
/// string (`Request.svenRegistrationBody()`), answered `{"status": "ok"}`.
///
/// Retirement: once the Sven app registers through another route (`/api/v1/devices/register`, the
/// gateway) or `register-apns add`, delete this folder, its line in `EndpointRouter.make`, the
/// `sven-*` golden fixtures and `/register-apns` in docs/openapi.yaml. Devices it registered stay
/// in the registry as they are; `send-push`'s positional `MESSAGE_ID PREVIEW` form is the Sven
/// hook's other half and stays with the command line.
struct SvenRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations

    /// Adds `/register-apns` to the registration group (the secret or an open network, rate limited).
    func add(to groups: EndpointRouteGroups) {
        groups.registration.post("register-apns", use: register)
    }

    @Sendable func register(_ request: Request, context: Context) async throws -> Response {
        let body = try await request.svenRegistrationBody()
        let registration = try DeviceRegistrations.registration(body)
        context.notes.token = registration.token
        _ = try await registrations.register(registration, route: context.routeLabel)
        return .json(["status": "ok"])
    }
}
