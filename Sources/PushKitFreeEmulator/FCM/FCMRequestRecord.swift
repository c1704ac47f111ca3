/// One FCM request as the emulator records it, beside the APNs records in the same `--record`
/// output and told apart by `"provider": "fcm"`. Neither the JWT assertion nor the access token
/// is ever recorded: only the assertion's issuer and scope once accepted.
struct FCMRequestRecord: Sendable {
    /// When the answer was sent, in milliseconds since 1970.
    var time: Int64 = 0
    /// `token` (the OAuth token endpoint) or `send` (`messages:send`).
    var kind = "send"
    /// The connection's number.
    var connection: Int
    /// The HTTP/2 stream id, or the request's ordinal on an HTTP/1.1 connection.
    var stream: Int
    /// The method as received.
    var method: String
    /// The path as received.
    var path: String
    /// The project id in the send path.
    var projectID: String?
    /// Whom the message goes to.
    var target: FCMMessageJudge.Target?
    /// `validate_only`.
    var validateOnly = false
    /// The message, compact JSON, once it passed.
    var message: [UInt8]?
    /// The payload size judged against the limit.
    var payloadBytes: Int?
    /// The accepted assertion's `iss`.
    var issuer: String?
    /// The accepted assertion's `scope`.
    var scope: String?
    /// The HTTP status sent.
    var status = 0
    /// Google's `error.status` (or the OAuth `error`) on failure.
    var errorStatus: String?
    /// The FcmError `errorCode`, when the answer carried one.
    var errorCode: String?
    /// The message id answered on delivery.
    var messageID: String?
    /// Why, in words.
    var detail: String?

    /// A record of a request that has not been answered yet.
    init(connection: Int, stream: Int, method: String, path: String) {
        self.connection = connection
        self.stream = stream
        self.method = method
        self.path = path
    }

    /// The record as one line of JSON, newline included.
    func jsonLine() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 512 + (message?.count ?? 0))
        writer.field("time", UTCTimestamp.iso8601(milliseconds: time))
        writer.field("provider", "fcm")
        writer.field("kind", kind)
        writer.field("connection", connection)
        writer.field("stream", stream)
        writer.field("method", method)
        writer.field("path", path)
        if kind == "token" {
            writer.field("iss", issuer)
            writer.field("scope", scope)
        } else {
            writer.field("project_id", projectID)
            writer.field("target", target?.kind)
            writer.field("device_token", target.flatMap { if case .token(let token) = $0 { token } else { nil } })
            if case .topic(let topic) = target { writer.field("topic", topic) }
            if case .condition(let condition) = target { writer.field("condition", condition) }
            writer.field("validate_only", validateOnly)
            writer.rawField("message", json: message)
            writer.field("payload_bytes", payloadBytes)
            if let messageID { writer.field("message_id", messageID) }
        }
        writer.field("status", status)
        if let errorStatus { writer.field("error_status", errorStatus) }
        if let errorCode { writer.field("error_code", errorCode) }
        if let detail { writer.field("detail", detail) }
        var line = writer.finish()
        line.append(0x0A)
        return line
    }

    /// The request in one human-readable line, newline included, e.g.
    /// `12:00:01.234 200 fcm send token dGVzdDox…QVBBOTFi`.
    func summary() -> String {
        var line = UTCTimestamp.clockTime(milliseconds: time) + " \(status)"
        if let errorStatus { line += " \(errorCode ?? errorStatus)" }
        line += " fcm \(kind)"
        if let target {
            line += " \(target.kind) \(EmulatorRequestRecord.abbreviated(target.value))"
        } else if kind != "token" {
            line += " \(method) \(path)"
        }
        if validateOnly { line += " validate_only" }
        if let detail { line += " (\(detail))" }
        return line + "\n"
    }
}
