#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket
import PushKitFreeCore

/// One WebSocket connection to `/gateway/ws` (or `/`): the secret, then each message answered in order.
/// Whatever one connection sends or does ends at most that connection.
struct GatewaySocket: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    /// The per-client allowance each message that changes the registry spends.
    let limiter: RateLimiter
    let auth: AuthMiddleware
    /// Where the upgrade's request is counted.
    let metrics: EndpointMetrics

    func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        context socketContext: WebSocketRouterContext<Context>, route: String
    ) async throws {
        let request = socketContext.request
        let context = socketContext.requestContext
        let opened = ContinuousClock.now
        do throws(EndpointError) {
            _ = try auth.admit(request, client: context.client)
        } catch {
            log(context, route: route, status: Int(error.status.code), since: opened, token: nil, message: nil)
            try await outbound.write(.text(Self.reply(error, requestID: context.requestID).serializedString()))
            try await outbound.close(.policyViolation, reason: Self.closeReason(error.message))
            return
        }
        log(context, route: route, status: 101, since: opened, token: nil, message: nil)
        var session = GatewaySession(
            registrations: registrations, limiter: limiter, transport: .socket, client: context.client)
        var assembler = GatewayMessageAssembler(sizeLimit: GatewayMessage.sizeLimit)
        for try await dataFrame in inbound {
            let frame: WebSocketMessage
            switch assembler.add(dataFrame) {
            case .incomplete:
                continue
            case .message(let message):
                frame = message
            case .refused(let code, let reason):
                log(context, route: route, status: 413, since: opened, token: session.token, message: "-")
                try await outbound.close(code, reason: Self.closeReason(reason))
                return
            }
            let started = ContinuousClock.now
            var type: String?
            let reply: JSONValue?
            let status: Int
            do throws(EndpointError) {
                guard case .text(let text) = frame else {
                    throw .badRequest("a binary message is not one of the gateway's: send JSON as text")
                }
                let message = try GatewayMessage(Data(text.utf8))
                type = message.type
                reply = try await session.answer(message)
                status = 200
            } catch {
                if let detail = error.logDetail {
                    StandardStreams.writeError(
                        "\(EndpointServer.tool): error: request \(context.requestID): WS /gateway/ws "
                            + "\(error.status.code): \(error.message): \(detail)\n")
                }
                reply = Self.reply(error, requestID: context.requestID)
                status = Int(error.status.code)
            }
            log(context, route: route, status: status, since: started, token: session.token, message: type ?? "-")
            if let reply { try await outbound.write(.text(reply.serializedString())) }
        }
    }

    /// The `error` message for `error`: its text, and the request id when the log has more.
    static func reply(_ error: EndpointError, requestID: String) -> JSONValue {
        var body = EmberErrors().body(of: error, requestID: requestID).objectValue ?? [:]
        body["error"] = nil
        return .object(body)
    }

    /// A close frame's reason holds at most 123 bytes (RFC 6455, 5.5: 125 with the code).
    static func closeReason(_ text: String) -> String {
        var reason = ""
        for character in text {
            guard reason.utf8.count + String(character).utf8.count <= 123 else { break }
            reason.append(character)
        }
        return reason
    }

    /// The access-log line of the upgrade (`message` nil: `GET`, with its metrics) or of one message (`WS`).
    private func log(
        _ context: Context, route: String, status: Int, since start: ContinuousClock.Instant,
        token: DeviceToken?, message: String?
    ) {
        let seconds = start.secondsElapsed
        let path = route
        if message == nil {
            metrics.request(route: path, method: "GET", status: status, seconds: seconds)
        }
        StandardStreams.writeError(
            AccessLog.line(
                client: context.client, method: message == nil ? "GET" : "WS", path: path, status: status,
                seconds: seconds, token: token, message: message))
    }
}
