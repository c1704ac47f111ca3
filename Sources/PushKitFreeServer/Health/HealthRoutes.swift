import Hummingbird
import NIOCore
import PushKitFreeCore

/// `GET /health` and `GET /health/live`, which need no secret, and `GET /metrics`, which does.
struct HealthRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let health: EndpointHealth
    let metrics: EndpointMetrics

    /// The health checks without the secret (a load balancer's probe has none), `/metrics` with it.
    func add(to groups: EndpointRouteGroups) {
        groups.open.get("health", use: health)
        groups.open.get("health/live", use: liveness)
        groups.guarded.get("metrics", use: exposition)
    }

    /// 200 `{"status": "healthy"}`, or 503 with the problems (worded without paths).
    @Sendable func health(_ request: Request, context: Context) async throws -> Response {
        let problems = health.problems()
        if problems.isEmpty { return .json(["status": "healthy"]) }
        return .json(
            [
                "status": "unhealthy", "error": .string(problems.joined(separator: "; ")),
                "problems": .array(problems.map(JSONValue.string)),
            ], status: .serviceUnavailable)
    }

    /// 200 whenever the process answers.
    @Sendable func liveness(_ request: Request, context: Context) async throws -> Response {
        .json(["status": "alive"])
    }

    /// The Prometheus text exposition.
    @Sendable func exposition(_ request: Request, context: Context) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
}
