#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Reading the JSON bodies apps POST when they register (`register-apns add --from-json`).
extension DeviceRegistration {
    /// Fields given on the command line, used where a body does not say.
    package struct Defaults: Sendable, Equatable {
        /// `--environment`, `--sandbox` or `--production`.
        package var environment: APNsEnvironment?
        /// `--name`.
        package var name: String?
        /// `--model`.
        package var model: String?
        /// `--os-version`.
        package var osVersion: String?
        /// `--app-version`.
        package var appVersion: String?
        /// `--group`, repeated; `nil` when none was given.
        package var groups: [String]?
        /// `--transport`: what a body without `"transport"` states; `nil` recognizes its token by shape.
        package var transport: PushTransport?

        /// Defaults from the given flags; `nil` for those not given.
        package init(
            environment: APNsEnvironment? = nil, name: String? = nil, model: String? = nil, osVersion: String? = nil,
            appVersion: String? = nil, groups: [String]? = nil, transport: PushTransport? = nil
        ) {
            self.transport = transport
            self.environment = environment
            self.name = name
            self.model = model
            self.osVersion = osVersion
            self.appVersion = appVersion
            self.groups = groups
        }
    }

    /// Parses one registration body, or several (a JSON array, or one object per line).
    ///
    /// Two shapes are seen in the field:
    /// - `{"device_token": "<app device id>", "apns_token": "<hex>"}`: the app's id and its token;
    /// - `{"device_token": "<hex>", "device_name": ..., "device_model": ..., "os_version": ...,
    ///   "app_version": ...}`: no separate id, so one is derived from the token
    ///   (`derivedDeviceID(for:)`).
    ///
    /// The token is an APNs token (hex) or an FCM registration token, told apart by shape, or as
    /// `transport` (`"apns"` or `"fcm"`) states: a statement the token's shape contradicts is refused
    /// naming the member. `environment` is checked but not kept for an FCM token (it has none; apps
    /// send one whatever their token), and `push_to_start_token` is refused beside an FCM token.
    ///
    /// Both may carry `device_name` (or `name`), `device_model` (or `model`), `os_version`,
    /// `app_version`, `environment`, `groups`, `push_to_start_token` (the ActivityKit token
    /// for starting Live Activities, hex), `timezone` (the device's IANA zone, checked against the
    /// tz database) and `content_key` (the install's 32-byte key for encrypted sends, standard
    /// base64); other members are ignored. `defaults` fill what a
    /// body leaves out.
    /// - Parameter source: how messages name the input, e.g. "standard input" or a path.
    /// - Throws: `RegistryError.invalidInput` (exit 65) naming the source, the line or element, and
    ///   the problem; also for an input with no body (empty, or an empty array). Nothing is
    ///   returned unless every body is valid.
    package static func parseRequestBodies(
        _ data: Data, source: String, defaults: Defaults = Defaults()
    ) throws(RegistryError) -> [DeviceRegistration] {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) {
            throw RegistryError.invalidInput("no registration body: \(source) is empty")
        }
        let bodies: [(context: String, value: JSONValue)]
        do throws(JSONSyntaxError) {
            let document = try JSONValue.parse(data)
            if case .array(let elements) = document {
                bodies = elements.enumerated().map { ("element \($0.offset + 1) of \(source)", $0.element) }
            } else {
                bodies = [("registration body in \(source)", document)]
            }
        } catch let documentError {
            bodies = try jsonLines(data, source: source, documentError: documentError)
        }
        if bodies.isEmpty { throw RegistryError.invalidInput("no registration body: \(source) is an empty array") }
        var registrations: [DeviceRegistration] = []
        for body in bodies {
            do throws(RegistrationBodyError) {
                registrations.append(try registration(fromBody: body.value, defaults: defaults))
            } catch {
                throw RegistryError.invalidInput("\(body.context): \(error.description)")
            }
        }
        return registrations
    }

    /// One object per line. A first line that is not JSON means the input was one broken document,
    /// so the whole-document error is reported instead.
    private static func jsonLines(
        _ data: Data, source: String, documentError: JSONSyntaxError
    ) throws(RegistryError) -> [(context: String, value: JSONValue)] {
        var bodies: [(context: String, value: JSONValue)] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0d && $0 != 0x09 }) else { continue }
            do throws(JSONSyntaxError) {
                bodies.append(("line \(index + 1) of \(source)", try JSONValue.parse(Data(line))))
            } catch {
                if bodies.isEmpty {
                    throw RegistryError.invalidInput(
                        "registration body in \(source) is not valid JSON: \(documentError.detail)")
                }
                throw RegistryError.invalidInput("line \(index + 1) of \(source) is not valid JSON: \(error.detail)")
            }
        }
        return bodies
    }

    /// Reads one registration body (see `parseRequestBodies` for the shapes and fields).
    /// - Throws: `RegistrationBodyError`: `.invalidToken` when a token is not one, `.invalidBody`
    ///   for a body of the wrong shape (the endpoint answers 422 and 400).
    /// - Parameter textLimit: the most characters of a name, model, version or group name
    ///   (`endpointTextLimit` for the HTTP endpoint); `nil` for none.
    package static func registration(
        fromBody body: JSONValue, defaults: Defaults = Defaults(),
        textLimit: Int? = nil
    ) throws(RegistrationBodyError) -> DeviceRegistration {
        guard let object = body.objectValue else {
            throw .invalidBody("expected a JSON object, not \(body.typeName)")
        }
        let fields = RequestBodyFields(object)
        let statedTransport = try fields.transport()
        func token(_ text: String) throws(RegistrationBodyError) -> DeviceToken {
            do throws(DeviceTokenError) {
                return try DeviceToken(
                    validating: text, stated: statedTransport ?? defaults.transport,
                    statedBy: statedTransport == nil ? "--transport" : "\"transport\"")
            } catch {
                throw .invalidToken(error.message)
            }
        }
        guard let deviceToken = try fields.string("device_token") else {
            throw .invalidBody("\"device_token\" is missing")
        }
        let deviceID: String
        let pushToken: DeviceToken
        if let tokenText = try fields.string("apns_token") {
            deviceID = deviceToken
            pushToken = try token(tokenText)
        } else {
            pushToken = try token(deviceToken)
            deviceID = derivedDeviceID(for: pushToken)
        }
        var environment = defaults.environment
        if let text = try fields.string("environment") {
            guard let value = APNsEnvironment(userText: text) else {
                throw .invalidBody("\"environment\" must be production or sandbox, not \"\(text)\"")
            }
            environment = value
        }
        var pushToStartToken: DeviceToken?
        if let text = try fields.string("push_to_start_token") {
            guard pushToken.transport == .apns else {
                throw .invalidToken("\"push_to_start_token\": " + pushToStartWithoutAPNs)
            }
            do throws(DeviceTokenError) {
                pushToStartToken = try DeviceToken(validating: text)
            } catch {
                throw .invalidToken("\"push_to_start_token\": " + error.message)
            }
        }
        let name = try fields.text("device_name", "name", limit: textLimit) ?? defaults.name
        let model = try fields.text("device_model", "model", limit: textLimit) ?? defaults.model
        let osVersion = try fields.text("os_version", limit: textLimit) ?? defaults.osVersion
        let appVersion = try fields.text("app_version", limit: textLimit) ?? defaults.appVersion
        let groups = try fields.strings("groups") ?? defaults.groups
        var timeZone: String?
        if let text = try fields.string("timezone") {
            do throws(BriefingSettingsError) {
                timeZone = try BriefingSettings.validatedTimeZone(.string(text))
            } catch {
                throw .invalidValue(error.message)
            }
        }
        var contentKey: ContentKey?
        if let text = try fields.string("content_key") {
            do throws(ContentKeyError) {
                contentKey = try ContentKey(base64: text)
            } catch {
                throw .invalidBody("\"content_key\": \(error.message)")
            }
        }
        if let textLimit, let groups {
            for group in groups {
                if let message = lengthProblem(group, named: "group name", limit: textLimit) {
                    throw .invalidBody(message)
                }
            }
        }
        do throws(RegistryError) {
            return try DeviceRegistration(
                deviceID: deviceID, token: pushToken, environment: environment, name: name, model: model,
                osVersion: osVersion, appVersion: appVersion, groups: groups, pushToStartToken: pushToStartToken,
                timeZone: timeZone, contentKey: contentKey
            )
        } catch {
            throw .invalidBody(error.description)
        }
    }

    /// The device id of a registration that carries only a token: "apns-" (or "fcm-" for an FCM
    /// token) and the first 16 hex digits of SHA-256 of the token's text (lowercase hex for APNs)
    /// (`printf %s "$token" | sha256sum | cut -c1-16`). Stable for a token, and never the token
    /// itself, which `register-apns list` would then print whole.
    package static func derivedDeviceID(for token: DeviceToken) -> String {
        token.transport.rawValue + "-" + HexDigest.sha256(token.text).prefix(16)
    }
}

/// Why a registration body was refused.
package enum RegistrationBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A token field is not a valid token, or not one of the transport the body states.
    case invalidToken(String)
    /// The body is not an object, lacks `device_token`, or a field has the wrong type or value.
    case invalidBody(String)
    /// A field is well-formed but names what does not exist (a `timezone` the tz database lacks).
    case invalidValue(String)

    /// The message.
    package var description: String {
        switch self {
        case .invalidToken(let message), .invalidBody(let message), .invalidValue(let message): message
        }
    }
}

/// Typed access to the members of a request body, with messages naming the member at fault.
package struct RequestBodyFields: Sendable {
    /// The body's members, by name.
    package let object: [String: JSONValue]

    /// Typed access to `object`, a request body's members.
    package init(_ object: [String: JSONValue]) {
        self.object = object
    }

    /// The first of `names` present and not null. Every one of `names` present must be a string or
    /// null, the ones not used too (a body is refused for a mistyped alias, not silently half-read).
    package func string(_ names: String...) throws(RegistrationBodyError) -> String? {
        try string(names)
    }

    /// `string(_:)` with the names as an array.
    package func string(_ names: [String]) throws(RegistrationBodyError) -> String? {
        var found: String?
        for name in names {
            guard let value = object[name] else { continue }
            switch value {
            case .null: continue
            case .string(let text): if found == nil { found = text }
            default: throw .invalidBody("\"\(name)\" must be a string, not \(value.typeName)")
            }
        }
        return found
    }

    /// `string(_:)` for text a person reads (names, models, versions): each of `names` present has
    /// at most `limit` characters (Unicode scalars, as JSON Schema's `maxLength` counts them), when
    /// a limit is given.
    package func text(_ names: String..., limit: Int?) throws(RegistrationBodyError) -> String? {
        for name in names {
            if let limit, let text = object[name]?.stringValue,
                let message = DeviceRegistration.lengthProblem(text, named: "\"\(name)\"", limit: limit)
            {
                throw .invalidBody(message)
            }
        }
        return try string(names)
    }

    /// An array of strings, or `nil` when absent or null.
    package func strings(_ name: String) throws(RegistrationBodyError) -> [String]? {
        guard let value = object[name], value != .null else { return nil }
        guard let elements = value.arrayValue, elements.allSatisfy({ $0.stringValue != nil }) else {
            throw .invalidBody("\"\(name)\" must be an array of strings")
        }
        return elements.compactMap(\.stringValue)
    }

    /// `"transport"`: `apns` or `fcm`, or `nil` when absent or null.
    package func transport() throws(RegistrationBodyError) -> PushTransport? {
        guard let text = try string("transport") else { return nil }
        guard let transport = PushTransport(rawValue: text) else {
            throw .invalidBody("\"transport\" must be apns or fcm, not \"\(text)\"")
        }
        return transport
    }

    /// A whole number, or `nil` when absent or null.
    package func integer(_ name: String) throws(RegistrationBodyError) -> Int? {
        guard let value = object[name], value != .null else { return nil }
        guard let number = value.integerValue else {
            throw .invalidBody(
                "\"\(name)\" must be a whole number, not \(value.typeName == "number" ? "\(value.numberValue ?? 0)" : value.typeName)"
            )
        }
        return number
    }

    /// A number, or `nil` when absent or null.
    package func number(_ name: String) throws(RegistrationBodyError) -> Double? {
        guard let value = object[name], value != .null else { return nil }
        guard let number = value.numberValue else {
            throw .invalidBody("\"\(name)\" must be a number, not \(value.typeName)")
        }
        return number
    }

    /// `urgency`: low, normal, high or critical, or `nil` when absent or null.
    package func urgency() throws(RegistrationBodyError) -> Urgency? {
        guard let text = try string("urgency") else { return nil }
        guard let urgency = Urgency(rawValue: text) else {
            throw .invalidBody("\"urgency\" must be \(Urgency.names), not \"\(TerminalText.field(text))\"")
        }
        return urgency
    }

    /// `true` or `false`, or `nil` when absent or null.
    package func bool(_ name: String) throws(RegistrationBodyError) -> Bool? {
        guard let value = object[name], value != .null else { return nil }
        guard case .bool(let flag) = value else {
            throw .invalidBody("\"\(name)\" must be true or false, not \(value.typeName)")
        }
        return flag
    }

    /// A JSON object, or `nil` when absent or null.
    package func object(_ name: String) throws(RegistrationBodyError) -> [String: JSONValue]? {
        guard let value = object[name], value != .null else { return nil }
        guard let members = value.objectValue else {
            throw .invalidBody("\"\(name)\" must be a JSON object, not \(value.typeName)")
        }
        return members
    }
}
