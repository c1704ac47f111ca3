import NIOCore
import PushKitFreeCore

/// The control surface under `/emulator/` on the emulator's own port, for tests and demos. No
/// provider token is needed and nothing here is recorded.
///
/// - `POST /emulator/unregister/<token>`: answer `410 Unregistered` for the token from now on (for
///   an FCM registration token, 404 `UNREGISTERED`).
/// - `POST /emulator/register/<token>`: forget any scripted state of the token.
/// - `GET /emulator/requests`: the last 1000 records, one JSON object per line.
/// - `GET /emulator/status`: counters, environment, scripted tokens and the number of broadcast
///   channels as JSON.
/// - `GET /emulator/status` also counts FCM token requests, access tokens issued, sends and
///   deliveries (`fcm_token_requests`, `fcm_tokens_issued`, `fcm_sends`, `fcm_delivered`).
/// - `POST /emulator/go-silent`: every other connection open now goes silent (see
///   `ConnectionSilencer`); answers how many did.
/// - `POST /emulator/answer`: plays the app answering a recorded question push: posts the body's
///   `choice` or `text` to the push's answer URL and returns what the server said (see
///   `EmulatorPhone`). The only route answered later, once that server has answered.
struct EmulatorControl {
    struct Response: Sendable {
        var status: Int
        var contentType: String
        var body: [UInt8]
    }

    /// An answer now, or one that comes once another server has answered (`POST /emulator/answer`).
    enum Reply {
        case now(Response)
        case later(EventLoopFuture<Response>)
    }

    static let prefix = "/emulator/"

    let state: EmulatorState
    let configuration: EmulatorConfiguration
    /// The broadcast channels, for their count in the status.
    var channels: EmulatorChannels?
    /// Google's FCM routes, for their counters in the status.
    var fcm: FCMEndpoint?
    /// Plays the app for `POST /emulator/answer`; `nil` answers that route 404.
    var phone: EmulatorPhone?

    /// Answers a control request; only `POST /emulator/answer` answers `later`, on `eventLoop`.
    /// - Parameter silenceOthers: makes the other open connections go silent; returns how many.
    func reply(
        method: String, path: String, body: [UInt8], now milliseconds: Int64, eventLoop: any EventLoop,
        silenceOthers: () -> Int
    ) -> Reply {
        guard path == Self.prefix + "answer", let phone else {
            return .now(respond(method: method, path: path, now: milliseconds, silenceOthers: silenceOthers))
        }
        guard method == "POST" else { return .now(error(405, .methodNotAllowed)) }
        return .later(phone.answer(body: body, on: eventLoop))
    }

    /// Answers every control request but `POST /emulator/answer` (see `reply`).
    /// - Parameter silenceOthers: makes the other open connections go silent; returns how many.
    func respond(method: String, path: String, now milliseconds: Int64, silenceOthers: () -> Int) -> Response {
        let route = path.dropFirst(Self.prefix.count).split(
            separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let action = route.first.map(String.init) ?? ""
        let argument = route.count > 1 ? String(route[1]) : nil
        switch (action, argument) {
        case ("unregister", let token?), ("register", let token?):
            guard method == "POST" else { return error(405, .methodNotAllowed) }
            guard APNsRequestValidator.isHexOfEvenLength(token) || FCMMessageJudge.isRegistrationTokenShaped(token)
            else {
                return error(400, .badDeviceToken)
            }
            var writer = JSONObjectWriter()
            writer.field("device_token", token)
            if action == "unregister" {
                state.unregister(token, at: milliseconds)
                writer.field("state", "unregistered")
                writer.field("timestamp", Int(milliseconds))
            } else {
                writer.field("state", "registered")
                writer.field("was_scripted", state.register(token))
            }
            return json(writer)
        case ("go-silent", nil):
            guard method == "POST" else { return error(405, .methodNotAllowed) }
            var writer = JSONObjectWriter()
            writer.field("silenced", silenceOthers())
            return json(writer)
        case ("requests", nil):
            guard method == "GET" else { return error(405, .methodNotAllowed) }
            return Response(status: 200, contentType: "application/x-ndjson", body: state.recentRecords())
        case ("status", nil):
            guard method == "GET" else { return error(405, .methodNotAllowed) }
            let (counters, devices) = state.snapshot()
            var writer = JSONObjectWriter()
            writer.field("environment", configuration.environment.rawValue)
            writer.field("topic", configuration.trust.bundleID)
            writer.field("key_id", configuration.trust.keyID)
            writer.field("team_id", configuration.trust.teamID)
            writer.field("connections", counters.connections)
            writer.field("requests", counters.requests)
            writer.field("accepted", counters.accepted)
            writer.field("rejected", counters.rejected)
            if let channels { writer.field("channels", channels.count) }
            if let fcm {
                let fcmCounters = fcm.counters
                writer.field("fcm_project_id", fcm.account.projectID)
                writer.field("fcm_token_requests", fcmCounters.tokenRequests)
                writer.field("fcm_tokens_issued", fcmCounters.tokensIssued)
                writer.field("fcm_sends", fcmCounters.sends)
                writer.field("fcm_delivered", fcmCounters.delivered)
            }
            var unregistered = JSONObjectWriter()
            for (token, timestamp) in devices.unregistered.sorted(by: { $0.key < $1.key }) {
                unregistered.field(named: token, Int(timestamp))
            }
            writer.rawField("unregistered", json: unregistered.finish())
            if !devices.expired.isEmpty {
                var expired = JSONObjectWriter()
                for (token, timestamp) in devices.expired.sorted(by: { $0.key < $1.key }) {
                    expired.field(named: token, Int(timestamp))
                }
                writer.rawField("expired", json: expired.finish())
            }
            var wrong: [UInt8] = [UInt8(ascii: "[")]
            for (index, token) in devices.wrongEnvironment.sorted().enumerated() {
                if index > 0 { wrong.append(UInt8(ascii: ",")) }
                JSONString.appendQuoted(token, to: &wrong)
            }
            wrong.append(UInt8(ascii: "]"))
            writer.rawField("wrong_environment", json: wrong)
            return json(writer)
        default:
            return error(404, .badPath)
        }
    }

    private func json(_ writer: JSONObjectWriter) -> Response {
        var writer = writer
        var body = writer.finish()
        body.append(0x0A)
        return Response(status: 200, contentType: "application/json", body: body)
    }

    private func error(_ status: Int, _ reason: APNsReason) -> Response {
        var writer = JSONObjectWriter()
        writer.field("reason", reason.rawValue)
        return Response(status: status, contentType: "application/json", body: writer.finish())
    }
}
