import Hummingbird
import HummingbirdWebSocket
import NIOCore
import PushKitFreeCore
import Synchronization

/// Hummingbird's per-request context, plus what the endpoint's middleware and routes pass along:
/// the client's address, the request id, and whether the secret was waived for the client's network.
/// It carries hummingbird-websocket's handler too, for the gateway's WebSocket route.
struct EndpointRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address, "unknown" when the channel has none (the rate limit's key, the access log's).
    let client: String
    /// The request's id (`X-Request-Id`), set by `RequestIDMiddleware`.
    var requestID = ""
    /// Let in without the secret because the client is on an `--open-registration` network
    /// (set by `AuthMiddleware`).
    var openNetwork = false
    /// What the routes found out that the access log shows after the answer.
    let notes = RequestNotes()
    /// Where `GatewayRoutes.socketRouter` leaves the WebSocket handler of an upgrade.
    let webSocket = WebSocketHandlerReference<EndpointRequestContext>()

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The route's label in the metrics: its path as the router names it, `unmatched` when no route
    /// matched (a 404 or 405).
    var routeLabel: String { routePath ?? "unmatched" }

    /// The path of the route the router matched (`/api/v1/devices/{token}`), `nil` when none did.
    var routePath: String? {
        guard let path = endpointPath, path != "NotFound" else { return nil }
        return path
    }
}

/// The device a request was about, for its access-log line; set by the route while it answers.
final class RequestNotes: Sendable {
    private let device = Mutex<DeviceToken?>(nil)

    /// The device token the request named or registered, if any.
    var token: DeviceToken? {
        get { device.withLock { $0 } }
        set { device.withLock { $0 = newValue } }
    }
}
