import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// The OpenClaw notification service's routes (`../shared/seeds/000_78b5aa50b0fa7c45.txt`), under
/// `/api/v1`: register, list and remove devices, and send. Their clients read FastAPI's shapes:
/// errors carry `detail`, tokens show as their first 16 digits and `...`.
///
/// Retirement: once the OpenClaw app and outreach scripts call the native routes and tools, delete
/// this folder, its line in `EndpointRouter.make` (and `openClawDetail` in `EndpointError`), the
/// `openclaw-service-*` golden fixtures and its paths in docs/openapi.yaml. Devices it registered
/// stay in the registry as they are.
struct OpenClawRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender

    /// Adds the routes under `/api/v1`.
    func add(to groups: EndpointRouteGroups) {
        groups.answerErrors(in: OpenClawErrors())
        groups.registration.group("api/v1").post("devices/register", use: registerDevice)
        groups.removal.group("api/v1").delete("devices/{token}", use: unregisterDevice)
        let guarded = groups.guarded.group("api/v1")
        guarded.get("devices", use: listDevices)
        guarded.post("notifications/send", use: sendToAll)
        guarded.post("notifications/send/{token}", use: sendToDevice)
    }

    @Sendable func registerDevice(_ request: Request, context: Context) async throws -> Response {
        let registration = try DeviceRegistrations.registration(try await request.jsonBody())
        context.notes.token = registration.token
        let outcome = try await registrations.register(registration, route: context.routeLabel)
        return .json(["status": "registered", "device": EndpointJSON.device(outcome.device, tokens: .openClaw)])
    }

    @Sendable func listDevices(_ request: Request, context: Context) async throws -> Response {
        .json(EndpointJSON.deviceList(try registrations.read().devices, tokens: .openClaw))
    }

    @Sendable func unregisterDevice(_ request: Request, context: Context) async throws -> Response {
        _ = try await registrations.unregister(Self.token(context), route: context.routeLabel, notes: context.notes)
        return .json(["status": "unregistered"])
    }

    @Sendable func sendToAll(_ request: Request, context: Context) async throws -> Response {
        // A title or a body is enough here, where the service's FastAPI model wants both (422):
        // a lenient difference no caller of the service can meet, kept (docs/migrating/openclaw.md).
        let notification = try NotificationRequestBody(try await request.jsonBody(), profile: .openClaw)
        let report = try await sender.send(notification.specification, urgency: notification.urgency)
        return .json(EndpointJSON.sendReport(report, tokens: .openClaw))
    }

    /// Sends to the one device the path names, by device id or token. A device whose record cannot
    /// be read is refused by the send, and the answer's reason names the field.
    @Sendable func sendToDevice(_ request: Request, context: Context) async throws -> Response {
        let notification = try NotificationRequestBody(try await request.jsonBody(), profile: .openClaw)
        let idOrToken = Self.token(context)
        let devices = try registrations.read()
        let deviceID: String
        if let device = DeviceRegistrations.device(idOrToken, in: devices) {
            context.notes.token = device.record.token
            deviceID = device.id
        } else if let unreadable = devices.unreadableDevice(idOrToken) {
            deviceID = unreadable.id
        } else {
            throw EndpointError.deviceNotFound("no device with token or id \"\(AccessLog.maskedPath(idOrToken))\"")
        }
        // The pipeline reads the device again when it sends: it may be removed meanwhile (404).
        let report = try await sender.send(
            notification.specification, urgency: notification.urgency, to: PushSender.Audience(deviceIDs: [deviceID]))
        guard let result = report.results.first else {
            throw EndpointError.deviceNotFound("device \(deviceID) was removed before the notification was sent")
        }
        let json = EndpointJSON.result(result)
        return .json([
            "success": json["success"] ?? false, "apns_id": json["apns_id"] ?? .null,
            "reason": json["reason"] ?? .null,
        ])
    }

    /// The path's `{token}` segment, percent-decoded: a device id or an APNs token.
    private static func token(_ context: Context) -> String {
        RouteCatalogue.percentDecoded(Substring(context.parameters.get("token") ?? ""))
    }
}
