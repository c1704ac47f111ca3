import Hummingbird
import NIOCore

/// Hummingbird's per-request context, plus the client's address (for the rate limit and the
/// access log).
struct EndpointRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address, "unknown" when the channel has none.
    let client: String

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
