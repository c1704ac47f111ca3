import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// `POST /v1/withdraw` (the secret): takes back a notification sent earlier with a collapse id,
/// with a background push the app handles by removing the delivered notifications of that id
/// (`PushSpecification.withdrawal(of:)`), to `device`, to the devices of `group`, or to every
/// device (`WithdrawalFields`).
///
/// The answer is the send report `POST /api/v1/notifications/send` answers (`{"sent",
/// "results"}`, tokens as it masks them); 404 names a device or group with no registered device, and a withdrawal APNs
/// took for no device is 502 (`NotifierAudience.failure(of:)`).
struct WithdrawRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender

    /// The route's path.
    static let path = "v1/withdraw"
    /// The largest body: an id and a name fit many times.
    static let bodyLimit = 4 * 1024

    /// Adds `POST /v1/withdraw` to the guarded group (the secret).
    func add(to groups: EndpointRouteGroups) {
        groups.guarded.post(RouterPath(Self.path), use: withdraw)
    }

    @Sendable func withdraw(_ request: Request, context: Context) async throws -> Response {
        let body = try WithdrawalFields(body: Request.parseJSON(try await request.bodyBytes(limit: Self.bodyLimit)))
        let audience = try Self.audience(of: body, in: try registrations.read())
        let report = try await sender.send(body.specification, to: audience)
        if let failure = NotifierAudience.failure(of: report) { throw failure }
        return .json(EndpointJSON.sendReport(report, tokens: .openClaw))
    }

    /// Whom the withdrawal goes to: the device named, the group's devices, or every device.
    /// - Throws: `EndpointError` 404 naming the device or group with no registered device, or
    ///   saying none is registered.
    static func audience(
        of body: WithdrawalFields, in registry: RegisteredDevices
    ) throws(EndpointError) -> PushSender.Audience {
        let devices = registry.devices
        if let device = body.device {
            guard devices.contains(where: { $0.id == device }) else {
                throw .deviceNotFound("no device \"\(TerminalText.field(device))\" is registered")
            }
        } else if let group = body.group {
            guard devices.contains(where: { $0.record.groups.contains(group) }) else {
                throw .deviceNotFound("no device is in group \"\(TerminalText.field(group))\"")
            }
        } else if devices.isEmpty {
            throw .deviceNotFound("no devices are registered: the app registers itself when it starts")
        }
        return body.audience
    }
}
