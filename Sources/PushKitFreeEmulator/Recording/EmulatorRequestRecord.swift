import PushKitFreeCore

/// One request as the emulator records it: what arrived, what it meant, and the answer.
///
/// `jsonLine()` is the `--record` format (one JSON object per line, documented in
/// `docs/apns-emulator.md`); `summary()` is the one-line human form printed on standard error.
/// The provider token itself is never recorded, only its decoded header and claims.
struct EmulatorRequestRecord: Sendable {
    /// When the answer was sent, in milliseconds since 1970.
    var time: Int64
    /// The connection's number, counting from 1 in the order connections were accepted.
    var connection: Int
    /// The HTTP/2 stream id.
    var stream: Int
    /// `:method` as received.
    var method: String
    /// `:path` as received.
    var path: String
    /// What the validator read and judged.
    var assessment: APNsRequestAssessment
    /// The HTTP status sent.
    var status: Int
    /// The reason sent; `nil` for 200.
    var reason: APNsReason?
    /// The `apns-id` answered (echoed or generated) on success, else the one the request carried.
    var apnsID: String?
    /// The `apns-unique-id` answered (sandbox only).
    var apnsUniqueID: String?
    /// The 410 `timestamp`, in milliseconds since 1970.
    var timestamp: Int64?
    /// Why, in words, when the request was refused: a token or payload problem, an injected fault,
    /// a scripted device state.
    var detail: String?

    /// A record of `assessment` answered with `status` and `reason`; `apnsID` starts as the request's.
    init(
        time: Int64, connection: Int, stream: Int, method: String, path: String, assessment: APNsRequestAssessment,
        status: Int, reason: APNsReason?
    ) {
        self.time = time
        self.connection = connection
        self.stream = stream
        self.method = method
        self.path = path
        self.assessment = assessment
        self.status = status
        self.reason = reason
        self.apnsID = assessment.apnsID
    }

    /// The record as one line of JSON, newline included.
    func jsonLine() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 512 + (assessment.payload?.count ?? 0))
        writer.field("time", UTCTimestamp.iso8601(milliseconds: time))
        writer.field("kind", assessment.kind.rawValue)
        writer.field("connection", connection)
        writer.field("stream", stream)
        writer.field("method", method)
        writer.field("path", path)
        writer.field("device_token", assessment.deviceToken)
        if assessment.kind != .push {
            writer.field("bundle_id", assessment.bundleID)
            writer.field("channel_id", assessment.channelID)
            writer.field("apns_request_id", assessment.requestID)
            if let storagePolicy = assessment.storagePolicy { writer.field("message_storage_policy", storagePolicy) }
        }
        writer.field("topic", assessment.topic)
        writer.field("push_type", assessment.pushType?.rawValue ?? assessment.pushTypeHeader)
        if let text = assessment.priorityHeader, Int(text) == nil {
            writer.field("priority", text)
        } else {
            writer.field("priority", assessment.priorityHeader.flatMap { Int($0) })
        }
        writer.field("collapse_id", assessment.collapseID)
        writer.field("apns_id", apnsID)
        if let text = assessment.expirationHeader, Int(text) == nil {
            writer.field("expiration", text)
        } else {
            writer.field("expiration", assessment.expirationHeader.flatMap { Int($0) })
        }
        writer.rawField("payload", json: assessment.payload)
        writer.field("payload_bytes", assessment.payloadSize)
        writer.rawField("provider_token", json: assessment.providerToken?.recordJSON)
        writer.field("status", status)
        writer.field("reason", reason?.rawValue)
        if let timestamp { writer.field("timestamp", Int(timestamp)) }
        if let apnsUniqueID { writer.field("apns_unique_id", apnsUniqueID) }
        if let detail { writer.field("detail", detail) }
        var line = writer.finish()
        line.append(0x0A)
        return line
    }

    /// The request in one human-readable line, newline included, e.g.
    /// `12:00:01.234 200 alert 5 1a2b3c4d…9f8e com.example.app {"aps":{"alert":"Hi"}}`.
    func summary() -> String {
        var line = UTCTimestamp.clockTime(milliseconds: time)
        line.reserveCapacity(200)
        line += " "
        line += String(status)
        if let reason {
            line += " "
            line += reason.rawValue
        }
        if assessment.kind != .push {
            line += " \(assessment.kind.rawValue) \(method) \(path)"
            if let channelID = assessment.channelID { line += " channel=\(channelID)" }
        } else if method != "POST" || assessment.deviceToken == nil {
            line += " \(method) \(path)"
        } else {
            line += " "
            line += assessment.pushType?.rawValue ?? assessment.pushTypeHeader ?? "alert"
            if let priority = assessment.priorityHeader {
                line += " prio="
                line += priority
            }
            line += " "
            line += Self.abbreviated(assessment.deviceToken ?? "-")
            line += " "
            line += assessment.topic ?? "(no topic)"
        }
        if let payload = assessment.payload {
            line += " "
            if payload.count <= 120 {
                line += String(decoding: payload, as: UTF8.self)
            } else {
                line += String(String(decoding: payload.prefix(160), as: UTF8.self).prefix(119)) + "…"
            }
        }
        if let detail {
            line += " ("
            line += detail
            line += ")"
        }
        line += "\n"
        return line
    }

    /// A device token shortened to its first and last 8 characters.
    static func abbreviated(_ token: String) -> String {
        token.utf8.count <= 20 ? token : "\(token.prefix(8))…\(token.suffix(8))"
    }
}
