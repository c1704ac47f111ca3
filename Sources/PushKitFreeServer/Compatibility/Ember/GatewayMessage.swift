#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// One message of the Ember gateway's protocol that `register-apns serve` serves: a JSON object
/// whose `type` is `register`, `device_token`, `briefing_config` or `ping`.
///
/// The app's connection carries the gateway's other features too (inbox, memory): their messages
/// (`gatewayFeatureTypes`) are taken without an answer, since the Ember app closes its stream on an
/// `error`; a message of any other type is refused with an error naming its type.
package enum GatewayMessage: Sendable, Equatable {
    /// `{"type": "register", "client", "version", "capabilities"}`: the app says hello. A
    /// `device_id` member names the app's own id for its device.
    case register(deviceID: String?)
    /// `{"type": "device_token", "token": "<hex>", "platform": "ios"}`, with the optional members
    /// of a registration body (`device_id`, `environment`, `device_name`, `timezone`, ...).
    case deviceToken(GatewayDeviceToken)
    /// `{"type": "briefing_config", "enabled", "time", "timezone", "sources"}`: every member, as sent.
    case briefingConfig([String: JSONValue])
    /// `{"type": "ping"}`.
    case ping
    /// A message of the gateway's other features (`gatewayFeatureTypes`): nothing to do here.
    case gatewayFeature(type: String)

    /// The types served, in the order the protocol uses them.
    package static let servedTypes = ["register", "device_token", "briefing_config", "ping"]

    /// The Ember app's messages for its gateway's inbox and memory, which a push endpoint takes and
    /// leaves alone: the app sends `inbox_subscribe` and its configuration before its
    /// `device_token`, and an `error` would end its stream before the token is sent.
    package static let gatewayFeatureTypes = [
        "inbox_subscribe", "inbox_refresh", "inbox_read", "inbox_config", "memory_sync", "memory_delete",
    ]

    /// The largest message read, over the socket or as an HTTP body: far above what the served
    /// messages need, so that the app's other messages get their error instead of a closed socket.
    package static let sizeLimit = 65_536

    /// Reads one message.
    /// - Throws: `EndpointError` 400 for text that is not a JSON object with a served `type`.
    package init(_ data: Data) throws(EndpointError) {
        let json: JSONValue
        do throws(JSONSyntaxError) {
            json = try JSONValue.parse(data)
        } catch {
            throw .badRequest("the message is not JSON: \(error.detail)")
        }
        try self.init(json)
    }

    /// Reads one message (see `init(_: Data)`).
    package init(_ json: JSONValue) throws(EndpointError) {
        guard let object = json.objectValue else {
            throw .badRequest("a message is a JSON object with a \"type\", not \(json.typeName)")
        }
        let fields = RequestBodyFields(object)
        do throws(RegistrationBodyError) {
            guard let type = try fields.string("type") else {
                throw .invalidBody("the message has no \"type\"")
            }
            switch type {
            case "register":
                // What the app says of itself is not kept, but it must be what the protocol says.
                _ = try fields.string("client")
                _ = try fields.string("version")
                if let capabilities = object["capabilities"], capabilities != .null, capabilities.arrayValue == nil {
                    throw .invalidBody("\"capabilities\" must be an array, not \(capabilities.typeName)")
                }
                self = .register(deviceID: try Self.deviceID(fields))
            case "device_token":
                self = .deviceToken(try GatewayDeviceToken(fields))
            case "briefing_config":
                self = .briefingConfig(object)
            case "ping":
                self = .ping
            case let other where Self.gatewayFeatureTypes.contains(other):
                self = .gatewayFeature(type: other)
            default:
                throw .invalidBody(
                    "\"\(type)\" messages are not served here: this endpoint serves only "
                        + Self.servedTypes.joined(separator: ", ") + " (the push part of the gateway's protocol)")
            }
        } catch {
            throw EndpointError(error)
        }
    }

    /// The message's `type`.
    package var type: String {
        switch self {
        case .register: "register"
        case .deviceToken: "device_token"
        case .briefingConfig: "briefing_config"
        case .ping: "ping"
        case .gatewayFeature(let type): type
        }
    }

    /// Whether answering the message changes the registry (it then spends the client's allowance).
    package var changesRegistry: Bool {
        switch self {
        case .deviceToken, .briefingConfig: true
        case .register, .ping, .gatewayFeature: false
        }
    }

    /// The settings a `briefing_config` message carries (`BriefingSettings(members:)`): a zone the tz
    /// database lacks is 422, any other problem 400. `last_sent_on` is the server's to keep, so a
    /// message's is ignored.
    package static func briefingSettings(_ members: [String: JSONValue]) throws(EndpointError) -> BriefingSettings {
        var members = members
        members["last_sent_on"] = nil
        if let zone = members["timezone"], let name = zone.stringValue, !name.isEmpty {
            do throws(BriefingSettingsError) {
                _ = try BriefingSettings.validatedTimeZone(zone)
            } catch {
                throw .invalidToken(error.message)
            }
        }
        do throws(BriefingSettingsError) {
            return try BriefingSettings(members: members)
        } catch {
            throw .badRequest(error.message)
        }
    }

    /// The `device_id` member, checked as a device id.
    static func deviceID(_ fields: RequestBodyFields) throws(RegistrationBodyError) -> String? {
        guard let id = try fields.string("device_id") else { return nil }
        do throws(RegistryError) {
            try DeviceRegistration.validateDeviceID(id)
        } catch {
            throw .invalidBody("\"device_id\": \(error.description)")
        }
        return id
    }
}

/// A `device_token` message: the token (APNs, or an FCM registration token), the app's device id
/// when it names one, and the members it carries besides.
package struct GatewayDeviceToken: Sendable, Equatable {
    /// The token, as sent; checked when the registration is built from it.
    package var token: String
    /// The `device_id` member.
    package var deviceID: String?
    /// Every member, as sent (`environment`, `device_name`, `timezone`, ... are read from these).
    package var members: [String: JSONValue]
    /// Whether `platform` is `android`: the token must then be an FCM registration token.
    package var isAndroid: Bool

    /// - Throws: `RegistrationBodyError` for a missing `token`, a `platform` other than `ios` or
    ///   `android` (which states an FCM token: only FCM reaches Android phones), or `android` with
    ///   an APNs token.
    init(_ fields: RequestBodyFields) throws(RegistrationBodyError) {
        guard let token = try fields.string("token") else {
            throw .invalidBody("\"token\" is missing: the device's APNs token (hex) or FCM registration token")
        }
        if let platform = try fields.string("platform"), platform != "ios", platform != "android" {
            throw .invalidBody(
                "\"platform\" must be \"ios\" or \"android\", not \"\(platform)\": this endpoint registers APNs "
                    + "tokens of Apple devices and FCM registration tokens")
        }
        isAndroid = try fields.string("platform") == "android"
        if isAndroid, (try? DeviceToken(validating: token, transport: nil))?.transport == .apns {
            throw .invalidBody(
                "\"platform\" is \"android\", but \"token\" is an APNs device token: APNs reaches Apple devices only; "
                    + "an Android app registers its FCM registration token")
        }
        self.token = token
        deviceID = try GatewayMessage.deviceID(fields)
        members = fields.object
    }

    /// The registration body the core reads (`DeviceRegistration.registration(fromBody:)`): the
    /// members sent, with `device_token` the device id and `apns_token` the token (of either
    /// transport; `"transport": "fcm"` added for `platform` `android`).
    package func registrationBody(deviceID: String) -> JSONValue {
        var body = members
        for member in ["type", "token", "platform", "device_id"] { body[member] = nil }
        body["device_token"] = .string(deviceID)
        body["apns_token"] = .string(token)
        if isAndroid, body["transport"] == nil { body["transport"] = .string(PushTransport.fcm.rawValue) }
        return .object(body)
    }
}
