import Hummingbird
import PushKitFreeRegistry

/// `POST /register-apns`: the route the app's own registration code calls (the Sven design's
/// FastAPI handler), with a JSON body or `device_token` and `apns_token` in the query.
struct NativeRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations

    func add(to groups: EndpointRouteGroups) {
        groups.registration.post("register-apns", use: register)
    }

    @Sendable func register(_ request: Request, context: Context) async throws -> Response {
        let body = try await request.registrationBody(acceptingQuery: true)
        let registration = try DeviceRegistrations.registration(body)
        context.notes.token = registration.token
        _ = try await registrations.register(registration, route: .registerAPNs)
        return .json(["status": "ok"])
    }
}
