import CoreMetrics
import Metrics
import Prometheus
import PushKitFreeCore

/// The endpoint's metrics, recorded through swift-metrics and exposed in Prometheus' text format by
/// swift-prometheus at `GET /metrics`.
///
/// - `pushkit_http_requests_total{route,method,status}` and
///   `pushkit_http_request_duration_seconds{route}` (a histogram): every request.
/// - `pushkit_registrations_total{route}`, `pushkit_unregistrations_total{route}`: registry changes.
/// - `pushkit_registry_writes_total` and `pushkit_registry_write_batch_size` (a histogram): the
///   locked writes and how many changes each carried.
/// - `pushkit_sends_total{outcome}` (delivered, unregistered, rejected, failed, skipped, refused) and
///   `pushkit_prunes_total`: what deliveries did.
/// - `pushkit_connections_open` (a gauge), `pushkit_connections_refused_total{limit}` (a new
///   connection closed at once because every connection in its way was busy) and
///   `pushkit_connections_dropped_total{limit}` (an idle one closed to make room), where `limit` is
///   `full` (`--max-connections`) or `client` (`--max-connections-per-client`);
///   `pushkit_connections_timed_out_total{deadline}`: closed for a request head (`head`) or body
///   (`body`) that missed `--header-timeout`.
final class EndpointMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .seconds(2.5), .seconds(5), .seconds(10),
        ]
        factory.valueHistogramBuckets = ["pushkit_registry_write_batch_size": [1, 2, 5, 10, 25, 50, 100, 250, 500]]
        self.factory = factory
    }

    /// The metrics text.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    func request(route: String, method: String, status: Int, seconds: Double) {
        Counter(
            label: "pushkit_http_requests_total",
            dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory
        ).increment()
        Timer(label: "pushkit_http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    func connection(_ event: ConnectionLimit.ConnectionEvent) {
        switch event {
        case .refused(let limit):
            Counter(
                label: "pushkit_connections_refused_total", dimensions: [("limit", limit.rawValue)], factory: factory
            )
            .increment()
        case .dropped(let limit):
            Counter(
                label: "pushkit_connections_dropped_total", dimensions: [("limit", limit.rawValue)], factory: factory
            )
            .increment()
        case .count(let open):
            Gauge(label: "pushkit_connections_open", factory: factory).record(open)
        }
    }

    func timedOut(_ deadline: RequestDeadline) {
        Counter(
            label: "pushkit_connections_timed_out_total", dimensions: [("deadline", deadline.rawValue)],
            factory: factory
        ).increment()
    }

    func registered(route: String) {
        Counter(label: "pushkit_registrations_total", dimensions: [("route", route)], factory: factory).increment()
    }

    func unregistered(route: String, count: Int) {
        Counter(label: "pushkit_unregistrations_total", dimensions: [("route", route)], factory: factory)
            .increment(by: count)
    }

    func registryBatch(size: Int) {
        Counter(label: "pushkit_registry_writes_total", factory: factory).increment()
        Recorder(label: "pushkit_registry_write_batch_size", factory: factory).record(size)
    }

    func delivered(_ report: DeliveryReport) {
        for result in report.results {
            Counter(label: "pushkit_sends_total", dimensions: [("outcome", result.outcome.rawValue)], factory: factory)
                .increment()
        }
        if report.pruned > 0 { Counter(label: "pushkit_prunes_total", factory: factory).increment(by: report.pruned) }
    }
}
