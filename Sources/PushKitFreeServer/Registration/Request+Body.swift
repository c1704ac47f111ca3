#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import NIOCore
import PushKitFreeCore
import PushKitFreeRegistry

extension Request {
    /// The largest request body accepted; registration and notification bodies are far smaller.
    static let bodyLimit = 4096

    /// The body's bytes: at most `limit` (413), `bodyLimit` unless a route says otherwise.
    func bodyBytes(limit: Int = Request.bodyLimit) async throws(EndpointError) -> Data {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw .tooLarge(limit: limit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw .tooLarge(limit: limit)
        } catch {
            throw .badRequest("the request body could not be read: \(error)")
        }
        return Data(buffer.readableBytesView)
    }

    /// The body as JSON: at most `bodyLimit` bytes (413), not empty and valid JSON (400).
    func jsonBody() async throws(EndpointError) -> JSONValue {
        let data = try await bodyBytes()
        if data.allSatisfy(Self.isWhitespace) {
            throw .badRequest("the request body is empty; expected a JSON object")
        }
        return try Self.parseJSON(data)
    }

    /// A registration's body; for `/register-apns` without a body, `device_token` and `apns_token`
    /// from the query string (as the Sven design's FastAPI handler reads them), and `timezone` when given.
    func registrationBody(acceptingQuery: Bool) async throws(EndpointError) -> JSONValue {
        guard acceptingQuery else { return try await jsonBody() }
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
                    _ = try DeviceToken(validating: String(token))
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

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09
    }

    /// `data` as JSON (400 when it is not).
    private static func parseJSON(_ data: Data) throws(EndpointError) -> JSONValue {
        do throws(JSONSyntaxError) {
            return try JSONValue.parse(data)
        } catch {
            throw .badRequest("the request body is not JSON: \(error.detail)")
        }
    }
}
