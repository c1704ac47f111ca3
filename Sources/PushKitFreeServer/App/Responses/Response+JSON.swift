import HTTPTypes
import Hummingbird
import NIOCore
import PushKitFreeCore

extension Response {
    /// A JSON answer: `body` and a newline, `Content-Type: application/json`, and `headers`.
    static func json(
        _ body: JSONValue, status: HTTPResponse.Status = .ok,
        headers: [String: String] = [:]
    ) -> Response {
        var fields: HTTPFields = [.contentType: "application/json"]
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        var bytes = body.serialized()
        bytes.append(0x0a)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
