#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry
import PushKitFreeServer

extension FuzzTarget {
    /// The routes of an endpoint with the defaults, as its router holds them; built once.
    static let endpointRoutes: RouteCatalogue = {
        let home = "/nonexistent-pushkit-fuzz"
        guard
            let configuration = try? Configuration(
                flags: ConfigurationFlags(), environment: ["HOME": home],
                file: ConfigurationFile(path: home + "/config.json", exists: false, values: [:])),
            let settings = try? EndpointSettings(
                configuration: configuration, listen: .default, secretFile: nil, noAuth: true, rateLimit: 0,
                tls: nil, deliveryPolicy: DeliveryPolicy(), notificationPolicy: NotificationPolicy())
        else { preconditionFailure("the fuzzer's endpoint settings are refused") }
        return RouteCatalogue.endpoint(settings)
    }()

    /// `register-apns serve`: the input as a request path for every method, and as the JSON body
    /// of every route that reads one (registration, the iOS device hook, registerSubscription,
    /// notification send and ios-notify, triggerReplyFinished, the Ember gateway's messages), read by
    /// the same calls the routes make. Every refusal is a 4xx with a message; what is registered reads back.
    static func checkEndpoint(_ input: [UInt8]) throws(FuzzViolation) {
        let path = String(decoding: input, as: UTF8.self)
        for method in ["GET", "POST", "DELETE", "PUT"] {
            if case .route(let route, _) = endpointRoutes.match(method: method, path: path) {
                try FuzzViolation.require(
                    route.method == method, "\(method) matched the \(route.method) route \(route.path)")
            }
        }
        guard !input.isEmpty else { return }
        let body: JSONValue
        do throws(JSONSyntaxError) {
            body = try JSONValue.parse(Data(input))
        } catch {
            try FuzzViolation.requireMessage(error.detail, from: "the endpoint's JSON reader")
            return
        }
        var registry = RegisteredDevices()
        let registration: DeviceRegistration?
        let subscription: AgentSubscription.Request?
        let notification: NotificationRequestBody?
        let reply: AgentSubscription.ReplyFinished?

        // /register-apns, /api/v1/devices/register, and the hook's "register".
        do throws(RegistrationBodyError) {
            registration = try DeviceRegistration.registration(fromBody: body)
        } catch {
            try requireClientError(EndpointError(error), from: "the registration route")
            registration = nil
        }
        if let registration { try requireRegistered(registration, in: &registry) }

        // /hooks/ios-device: {"action": "register" | "unregister", ...}.
        do throws(EndpointError) {
            try deviceHook(body, registry: &registry)
        } catch {
            try requireClientError(error, from: "the device hook")
        }

        // /registerSubscription.
        do throws(EndpointError) {
            subscription = try AgentSubscription.Request(body)
        } catch {
            try requireClientError(error, from: "registerSubscription")
            subscription = nil
        }
        if let subscription {
            let before = registry
            let subscribed: Bool
            do throws(RegistryError) {
                _ = try subscription.apply(to: &registry, at: now)
                subscribed = true
            } catch {
                subscribed = false
            }
            try FuzzViolation.require(
                subscribed
                    ? registry[subscription.registration.deviceID]?.groups.contains(subscription.agentKey) == true
                    : registry == before,
                subscribed ? "a subscribed device is not in its agent's group" : "a refused subscription changed it")
        }
        try requireRoundTrip(registry, "registry after the endpoint's registrations", exact: true)

        // /api/v1/notifications/send[/{token}] and /hooks/ios-notify.
        do throws(EndpointError) {
            notification = try NotificationRequestBody(body)
        } catch {
            try requireClientError(error, from: "the notification routes")
            notification = nil
        }
        if let notification { try requireBuilds(notification.specification, "a notification body") }

        // /triggerReplyFinished.
        do throws(EndpointError) {
            reply = try AgentSubscription.ReplyFinished(body)
        } catch {
            try requireClientError(error, from: "triggerReplyFinished")
            reply = nil
        }
        for displayName in [nil, "Agent"] as [String?] {
            if let reply {
                try requireBuilds(
                    reply.specification(displayName: displayName, serverKey: "fuzz"), "triggerReplyFinished")
            }
        }

        // /gateway/messages, and each message of /gateway/ws.
        try checkGatewayMessage(input)
    }

    /// The Ember gateway's messages: every refusal is a 4xx with a message; a `device_token` builds
    /// the registration the core reads, or is refused as a registration body is.
    static func checkGatewayMessage(_ input: [UInt8]) throws(FuzzViolation) {
        let message: GatewayMessage
        do throws(EndpointError) {
            message = try GatewayMessage(Data(input))
        } catch {
            try requireClientError(error, from: "the gateway's messages")
            return
        }
        switch message {
        case .deviceToken(let device):
            let registration: DeviceRegistration
            do throws(RegistrationBodyError) {
                registration = try DeviceRegistration.registration(
                    fromBody: device.registrationBody(deviceID: device.deviceID ?? "gateway-device"),
                    textLimit: DeviceRegistration.endpointTextLimit)
            } catch {
                try requireClientError(EndpointError(error), from: "a gateway device_token")
                return
            }
            try FuzzViolation.require(
                registration.token == (try? DeviceToken(validating: device.token)),
                "a device_token registered another token than its own")
        case .briefingConfig(let members):
            let settings: BriefingSettings
            do throws(EndpointError) {
                settings = try GatewayMessage.briefingSettings(members)
            } catch {
                try requireClientError(error, from: "a gateway briefing_config")
                return
            }
            try FuzzViolation.require(
                (0..<1440).contains(settings.minuteOfDay) && settings.lastSentOn == nil,
                "a briefing_config was read as \(settings)")
        case .gatewayFeature(let type):
            try FuzzViolation.require(
                GatewayMessage.gatewayFeatureTypes.contains(type), "\(type) was taken for a gateway feature's message")
        case .register, .ping:
            break
        }
    }

    /// Builds the notification a route sends: a sendable payload, or a typed refusal.
    static func requireBuilds(_ spec: PushSpecification, _ what: String) throws(FuzzViolation) {
        let built: PushSpecification.Built
        do {
            built = try spec.build(bundleID: "com.example.app")
        } catch {
            try requireUserError(error, from: what)
            return
        }
        try requireSendablePayload(built.request.payload, what)
    }

    /// What `register-apns serve`'s `/hooks/ios-device` route does with a body, without the server.
    static func deviceHook(_ body: JSONValue, registry: inout RegisteredDevices) throws(EndpointError) {
        guard let object = body.objectValue else { throw .badRequest("expected a JSON object, not \(body.typeName)") }
        let fields = RequestBodyFields(object)
        let action: String?
        let token: String?
        do throws(RegistrationBodyError) {
            action = try fields.string("action")
            token = action == "unregister" ? try fields.string("apns_token", "device_token") : nil
        } catch {
            throw EndpointError(error)
        }
        switch action {
        case "register"?:
            let registration: DeviceRegistration
            do throws(RegistrationBodyError) {
                registration = try DeviceRegistration.registration(fromBody: body)
            } catch {
                throw EndpointError(error)
            }
            do throws(RegistryError) {
                try registry.register(registration, at: now)
            } catch {
                throw .conflict(error.description)
            }
        case "unregister"?:
            guard let token, !token.isEmpty else { throw .badRequest("\"device_token\" is missing") }
            _ = registry.remove(idOrToken: token)
        case let other?:
            throw .badRequest("\"action\" must be register or unregister, not \"\(other)\"")
        case nil:
            throw .badRequest("\"action\" is missing: register or unregister")
        }
    }

    /// A refused body is answered 400 or 422 with a message (409 for a registration whose device id
    /// names a group, or whose group names a device).
    static func requireClientError(_ error: EndpointError, from route: String) throws(FuzzViolation) {
        try FuzzViolation.requireMessage(error.message, from: route)
        try FuzzViolation.require(
            error.status == 400 || error.status == 422 || error.status == 409,
            "\(route) answered \(error.status) to a bad body: \(error.message)")
    }
}
