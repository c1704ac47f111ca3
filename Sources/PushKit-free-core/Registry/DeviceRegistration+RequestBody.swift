#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading the JSON bodies apps POST when they register (`register-apns add --from-json`).
extension DeviceRegistration {
    /// Fields given on the command line, used where a body does not say.
    public struct Defaults: Sendable, Equatable {
        /// `--environment`, `--sandbox` or `--production`.
        public var environment: APNsEnvironment?
        /// `--name`.
        public var name: String?
        /// `--model`.
        public var model: String?
        /// `--os-version`.
        public var osVersion: String?
        /// `--app-version`.
        public var appVersion: String?
        /// `--group`, repeated; `nil` when none was given.
        public var groups: [String]?

        /// Defaults from the given flags; `nil` for those not given.
        public init(environment: APNsEnvironment? = nil, name: String? = nil, model: String? = nil, osVersion: String? = nil, appVersion: String? = nil, groups: [String]? = nil) {
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
    ///   "app_version": ...}`: no separate id, so the token itself is the device id.
    ///
    /// Both may carry `device_name` (or `name`), `device_model` (or `model`), `os_version`,
    /// `app_version`, `environment`, `groups` and `push_to_start_token` (the ActivityKit token
    /// for starting Live Activities, hex); other members are ignored. `defaults` fill what a
    /// body leaves out.
    /// - Parameter source: how messages name the input, e.g. "standard input" or a path.
    /// - Throws: `RegistryError.invalidInput` (exit 65) naming the source, the line or element, and
    ///   the problem. Nothing is returned unless every body is valid.
    public static func parseRequestBodies(_ data: Data, source: String, defaults: Defaults = Defaults()) throws(RegistryError) -> [DeviceRegistration] {
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
        var registrations: [DeviceRegistration] = []
        for body in bodies {
            do throws(RegistryError) {
                registrations.append(try registration(from: body.value, defaults: defaults))
            } catch {
                throw RegistryError.invalidInput("\(body.context): \(error.description)")
            }
        }
        return registrations
    }

    /// One object per line. A first line that is not JSON means the input was one broken document,
    /// so the whole-document error is reported instead.
    private static func jsonLines(_ data: Data, source: String, documentError: JSONSyntaxError) throws(RegistryError) -> [(context: String, value: JSONValue)] {
        var bodies: [(context: String, value: JSONValue)] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0d && $0 != 0x09 }) else { continue }
            do throws(JSONSyntaxError) {
                bodies.append(("line \(index + 1) of \(source)", try JSONValue.parse(Data(line))))
            } catch {
                if bodies.isEmpty {
                    throw RegistryError.invalidInput("registration body in \(source) is not valid JSON: \(documentError.detail)")
                }
                throw RegistryError.invalidInput("line \(index + 1) of \(source) is not valid JSON: \(error.detail)")
            }
        }
        return bodies
    }

    private static func registration(from body: JSONValue, defaults: Defaults) throws(RegistryError) -> DeviceRegistration {
        guard let object = body.objectValue else {
            throw RegistryError.invalidInput("expected a JSON object, not \(body.typeName)")
        }
        func string(_ names: String...) throws(RegistryError) -> String? {
            for name in names {
                guard let value = object[name] else { continue }
                switch value {
                case .null: continue
                case .string(let text): return text
                default: throw RegistryError.invalidInput("\"\(name)\" must be a string, not \(value.typeName)")
                }
            }
            return nil
        }
        func token(_ text: String, field: String? = nil) throws(RegistryError) -> DeviceToken {
            do throws(DeviceTokenError) {
                return try DeviceToken(validating: text)
            } catch {
                throw RegistryError.invalidInput(field.map { "\"\($0)\": " + error.message } ?? error.message)
            }
        }
        guard let deviceToken = try string("device_token") else {
            throw RegistryError.invalidInput("\"device_token\" is missing")
        }
        let deviceID: String
        let apnsToken: DeviceToken
        if let apnsText = try string("apns_token") {
            deviceID = deviceToken
            apnsToken = try token(apnsText)
        } else {
            apnsToken = try token(deviceToken)
            deviceID = apnsToken.hex
        }
        var environment = defaults.environment
        if let text = try string("environment") {
            guard let value = APNsEnvironment(userText: text) else {
                throw RegistryError.invalidInput("\"environment\" must be production or sandbox, not \"\(text)\"")
            }
            environment = value
        }
        var groups = defaults.groups
        if let value = object["groups"], value != .null {
            guard let elements = value.arrayValue, elements.allSatisfy({ $0.stringValue != nil }) else {
                throw RegistryError.invalidInput("\"groups\" must be an array of strings")
            }
            groups = elements.compactMap(\.stringValue)
        }
        var pushToStartToken: DeviceToken?
        if let text = try string("push_to_start_token") { pushToStartToken = try token(text, field: "push_to_start_token") }
        return try DeviceRegistration(
            deviceID: deviceID, token: apnsToken, environment: environment,
            name: try string("device_name", "name") ?? defaults.name,
            model: try string("device_model", "model") ?? defaults.model,
            osVersion: try string("os_version") ?? defaults.osVersion,
            appVersion: try string("app_version") ?? defaults.appVersion,
            groups: groups,
            pushToStartToken: pushToStartToken
        )
    }
}
