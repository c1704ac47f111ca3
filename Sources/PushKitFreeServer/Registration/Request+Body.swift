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

    /// Whether `byte` is JSON's whitespace.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09
    }

    /// `data` as JSON (400 when it is not).
    static func parseJSON(_ data: Data) throws(EndpointError) -> JSONValue {
        do throws(JSONSyntaxError) {
            return try JSONValue.parse(data)
        } catch {
            throw .badRequest("the request body is not JSON: \(error.detail)")
        }
    }
}
