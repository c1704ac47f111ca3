#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

extension Request {
    /// A registration's body; without a body, `device_token` and `apns_token` from the query
    /// string (as the Sven design's handler reads them), and `timezone` when given.
    func svenRegistrationBody() async throws(EndpointError) -> JSONValue {
        let query = uri.queryParameters
        let fields = ["device_token", "apns_token"]
        guard (fields + ["timezone"]).contains(where: { query[Substring($0)] != nil }) else {
            return try await jsonBody()
        }
        let data = try await bodyBytes()
        if data.allSatisfy(Self.isWhitespace), !fields.contains(where: { query[Substring($0)] != nil }) {
            throw .badRequest("the request body is empty; expected a JSON object")
        }
        if !data.allSatisfy(Self.isWhitespace) {
            // The body is the registration; the query's fields must still be what the document
            // says they are (a device id, an APNs token), not garbage passed over in silence.
            if let id = query[Substring("device_token")] {
                do throws(RegistryError) {
                    try DeviceRegistration.validateDeviceID(String(id))
                } catch {
                    throw .badRequest("query parameter device_token: \(error.description)")
                }
            }
            if let token = query[Substring("apns_token")] {
                do throws(DeviceTokenError) {
                    _ = try DeviceToken(validating: String(token), transport: nil)
                } catch {
                    throw .invalidToken("query parameter apns_token: \(error.message)")
                }
            }
            if let zone = query[Substring("timezone")] {
                do throws(BriefingSettingsError) {
                    _ = try BriefingSettings.validatedTimeZone(.string(String(zone)))
                } catch {
                    throw .invalidToken("query parameter timezone: \(error.message)")
                }
            }
            return try Self.parseJSON(data)
        }
        var object: [String: JSONValue] = [:]
        for field in fields + ["timezone"] {
            if let value = query[Substring(field)] { object[field] = .string(String(value)) }
        }
        return .object(object)
    }
}
