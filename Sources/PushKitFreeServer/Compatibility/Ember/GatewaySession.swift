#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// One conversation in the Ember gateway's protocol: a WebSocket connection (`/gateway/ws`), or one
/// message posted over HTTP (`/gateway/messages`), which has no connection to remember anything.
///
/// On a connection, the first `device_token` makes the connection's device: its id is the one a
/// `device_id` member names (in that message or in `register` before it), else the one the core
/// derives from the token (`DeviceRegistration.derivedDeviceID(for:)`). A later `device_token` on
/// the same connection is the token rotating: it updates that device. `briefing_config` is stored
/// on the connection's device; one sent before the first `device_token` (the Ember app sends its
/// settings, then its token) is checked, acknowledged and kept, and stored once the token has
/// registered the device. Over HTTP each message names its device itself. The gateway's other
/// features' messages (inbox, memory) get no answer on a connection and `ack` over HTTP.
///
/// Messages that change the registry spend the client's allowance (`limiter`) and
/// are answered once the change is on disk (`RegistryWriteQueue`).
struct GatewaySession: Sendable {
    /// How the messages arrive.
    enum Transport: Sendable {
        /// A WebSocket connection: state is kept between messages.
        case socket
        /// One HTTP request per message: nothing is kept.
        case http
    }

    let registrations: DeviceRegistrations
    /// The per-client allowance each message that changes the registry spends.
    let limiter: RateLimiter
    let transport: Transport
    /// The peer's address (the rate limit's key).
    let client: String
    /// The device this connection registered (its first `device_token`); always `nil` over HTTP.
    private(set) var deviceID: String?
    /// The device token the last message registered or named (for the access log).
    private(set) var token: DeviceToken?
    /// The device id `register` named, used by the first `device_token` that names none.
    private var announcedDeviceID: String?
    /// A `briefing_config` sent before the connection's first `device_token`, stored with it.
    private var pendingBriefing: [String: JSONValue]?

    /// Whether the caller presented the secret; without it (an `--open-registration` peer) a
    /// `briefing_config` over HTTP must name its device by its token (APNs or FCM), which only the device
    /// and its server know, never by a device id, so that a peer can neither change another
    /// device's briefing nor learn whether a device id exists.
    let trusted: Bool

    init(
        registrations: DeviceRegistrations, limiter: RateLimiter, transport: Transport, client: String,
        trusted: Bool = true
    ) {
        self.registrations = registrations
        self.limiter = limiter
        self.transport = transport
        self.client = client
        self.trusted = trusted
    }

    /// The route the messages came by, for the metrics (a socket's at `/` counts as `/gateway/ws`).
    var route: String { transport == .socket ? GatewayRoutes.socketPath : GatewayRoutes.messagesPath }

    /// Answers one message.
    /// - Returns: the reply message (`registered`, `device_token_confirmed`, `ack`, `pong`); `nil`
    ///   for a message of the gateway's other features on a connection, which gets none.
    /// - Throws: `EndpointError`: its status is the HTTP route's answer, its message the `error`
    ///   message's text; nothing was changed.
    mutating func answer(_ message: GatewayMessage) async throws(EndpointError) -> JSONValue? {
        // `.none`, not `nil`: JSONValue takes the nil literal too, and `null` would be sent.
        if case .gatewayFeature = message { return transport == .socket ? .none : .some(GatewayReply.ack) }
        if case .briefingConfig(let members) = message, transport == .socket, deviceID == nil {
            // Before the token: checked now (an error names what is wrong), stored with the token.
            _ = try GatewayMessage.briefingSettings(members)
            pendingBriefing = members
            return GatewayReply.ack
        }
        if message.changesRegistry, let retryAfter = limiter.admit(client) {
            throw .rateLimited(retryAfter: retryAfter, limit: limiter.perMinute)
        }
        switch message {
        case .ping:
            return GatewayReply.pong
        case .register(let named):
            if let named, let deviceID, named != deviceID {
                throw .conflict(
                    "this connection's device is \"\(deviceID)\"; another device needs a connection of its own")
            }
            if transport == .socket, let named { announcedDeviceID = named }
            return GatewayReply.registered
        case .deviceToken(let message):
            return try await register(message)
        case .briefingConfig(let members):
            return try await configureBriefing(members)
        case .gatewayFeature:
            return .none
        }
    }

    private mutating func register(_ message: GatewayDeviceToken) async throws(EndpointError) -> JSONValue {
        let id: String
        if let deviceID {
            if let named = message.deviceID, named != deviceID {
                throw .conflict(
                    "this connection's device is \"\(deviceID)\"; a device_token for device \"\(named)\" "
                        + "needs a connection of its own")
            }
            id = deviceID
        } else if let named = message.deviceID ?? announcedDeviceID {
            id = named
        } else {
            do throws(DeviceTokenError) {
                id = DeviceRegistration.derivedDeviceID(for: try DeviceToken(validating: message.token, transport: nil))
            } catch {
                throw .invalidToken("\"token\": \(error.message)")
            }
        }
        let registration = try DeviceRegistrations.registration(message.registrationBody(deviceID: id))
        let outcome = try await registrations.register(registration, route: route)
        if transport == .socket { deviceID = id }
        token = registration.token
        if let pending = pendingBriefing {
            // Checked when it came and acknowledged then; the device now exists. The token is
            // registered whatever becomes of it (it could only fail to be written).
            pendingBriefing = nil
            _ = try? await configureBriefing(pending)
        }
        return GatewayReply.deviceTokenConfirmed(deviceID: outcome.device.id)
    }

    private mutating func configureBriefing(_ members: [String: JSONValue]) async throws(EndpointError) -> JSONValue {
        let fields = RequestBodyFields(members)
        var named: String?
        var byToken = false
        do throws(RegistrationBodyError) {
            named = try fields.string("device_id")
            if named == nil {
                named = try fields.string("token")
                byToken = named != nil
            }
        } catch {
            throw EndpointError(error)
        }
        let target: String
        switch transport {
        case .socket:
            guard let deviceID else {
                throw .conflict(
                    "send device_token first: briefing_config is stored on this connection's device, "
                        + "and it has registered none yet")
            }
            if let named, named != deviceID, (try? DeviceToken(validating: named, transport: nil)) != token {
                throw .conflict(
                    "this connection's device is \"\(deviceID)\"; a briefing_config for another device "
                        + "needs a connection of its own")
            }
            target = deviceID
        case .http:
            guard let named else {
                throw .badRequest(
                    "a briefing_config sent over HTTP names its device: \"device_id\", or \"token\" "
                        + "(the device's token)")
            }
            if !trusted, !byToken || (try? DeviceToken(validating: named, transport: nil)) == nil {
                throw .unauthorized(
                    "without the secret, a briefing_config names its device by its token (\"token\"), "
                        + "not by \"device_id\"")
            }
            target = named
        }
        let settings = try GatewayMessage.briefingSettings(members)
        let byTokenOnly = !trusted
        let updated = try await registrations.write { devices, now -> RegisteredDevice? in
            let found =
                byTokenOnly
                ? (try? DeviceToken(validating: target, transport: nil)).flatMap { token in
                    devices.devices.first { $0.record.token == token }
                }
                : DeviceRegistrations.device(target, in: devices)
            guard let device = found,
                devices.setBriefing(settings, deviceID: device.id, at: now)
            else { return nil }
            return devices[device.id].map { RegisteredDevice(id: device.id, record: $0) }
        }
        guard let device = updated else {
            throw .deviceNotFound(
                "no device with token or id \"\(AccessLog.maskedPath(target))\": send its device_token first")
        }
        token = device.record.token
        return GatewayReply.ack
    }
}
