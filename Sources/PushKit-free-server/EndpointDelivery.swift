#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import PushKitFreeCore
import PushKitFreeTransport

/// Sends for the endpoint's notification routes exactly as `send-push` does: the same delivery
/// policy (quiet hours, frequency cap), the same retries, pruning and environment learning.
///
/// Deliveries run one at a time on a thread of their own, over one libcurl HTTP/2 client kept for
/// the life of the server: the connection to APNs stays open between requests (Apple asks
/// providers to keep connections open rather than open one per notification), so a webhook
/// costs one round trip, not a TLS handshake. libcurl's client is driven by one thread only, which
/// the single thread guarantees.
final class EndpointDelivery: Sendable {
    let configuration: Configuration
    let deliveryPolicy: DeliveryPolicy
    let notificationPolicy: NotificationPolicy
    private let thread: NIOThreadPool
    private let client: DeliveryThreadState
    private let warn: @Sendable (String) -> Void

    /// The client, made on first use, and the provider credentials, loaded once they load: both
    /// touched only on the delivery thread, so a webhook reads and parses no key file.
    private final class DeliveryThreadState: @unchecked Sendable {
        var client: CurlHTTP2Client?
        var credentials: ProviderCredentials?
    }

    init(configuration: Configuration, deliveryPolicy: DeliveryPolicy, notificationPolicy: NotificationPolicy,
         warn: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.deliveryPolicy = deliveryPolicy
        self.notificationPolicy = notificationPolicy
        self.warn = warn
        client = DeliveryThreadState()
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// What stands in the way of sending at all: no topic, an unusable provider key or identifiers,
    /// or no libcurl. `summary` names which, in words fit for an HTTP answer (no paths); `detail`
    /// is the whole message, for the server's log. `nil` when sending can work.
    func problem() -> (summary: String, detail: String)? {
        if configuration.topic == nil {
            return ("no topic (the app's bundle id) is configured",
                    "no topic: set --topic, APNS_TOPIC or bundle_id to the app's bundle id")
        }
        do {
            _ = try ProviderCredentials.load(from: configuration)
            try CurlGlobal.load()
        } catch {
            return (summary(of: error), String(describing: error))
        }
        return nil
    }

    /// What kind of problem `error` is, without the paths and system messages it carries.
    func summary(of error: any Error) -> String {
        if configuration.topic == nil { return "no topic (the app's bundle id) is configured" }
        return switch error {
        case is ProviderKeyError, is ConfigurationError: "the provider key or its key id and team id cannot be used"
        case is LibcurlUnavailable: "libcurl cannot be loaded"
        default: "sending failed"
        }
    }

    /// Applies the policy to `spec`, then sends it to the devices `select` returns (called on the
    /// delivery thread, so the registry is read off the server's event loops).
    /// - Parameter capKey: what the frequency cap counts this send under.
    /// - Throws: `EndpointError` 400 for a payload APNs would refuse, 503 when sending is not set up
    ///   (no topic, no key, no libcurl), 500 when the registry cannot be read; neither 503 nor 500
    ///   puts a path in its message (the log detail has it).
    func send(_ spec: PushSpecification, groups: [String] = [], capKey: String,
              select: @escaping @Sendable () throws -> [DeliveryTarget]) async throws(EndpointError) -> DeliveryReport {
        var spec = spec
        let decision = notificationPolicy.apply(to: &spec, urgency: nil, groups: groups, topic: configuration.topic?.value, at: Date())
        let request: APNsRequest
        do {
            request = try spec.build(bundleID: configuration.topic?.value).request
        } catch let error as PayloadError {
            // A notification too large for APNs is 413, like a body over the limit: the request is
            // well formed, only too big.
            if case .tooLarge = error { throw .tooLarge(error.description) }
            throw .badRequest(error.description)
        } catch {
            throw unavailable(error)
        }
        do {
            return try await thread.runIfActive { [self] in
                try deliver(request, decision: decision, capKey: capKey, select: select)
            }
        } catch let error as EndpointError {
            throw error
        } catch let error as RegistryError {
            throw .registry("cannot be read", error)
        } catch {
            throw unavailable(error)
        }
    }

    /// The 503 for an error that stops sending: its kind for the client, the whole of it for the log.
    private func unavailable(_ error: any Error) -> EndpointError {
        .unavailable("sending is not possible on this server: \(summary(of: error))",
                     logDetail: String(describing: error))
    }

    /// On the delivery thread.
    private func deliver(_ request: APNsRequest, decision: NotificationPolicy.Decision, capKey: String,
                         select: () throws -> [DeliveryTarget]) throws -> DeliveryReport {
        let targets = try select()
        guard !targets.isEmpty else { return DeliveryReport(results: [], seconds: 0) }
        let configuration = self.configuration
        if let reason = try notificationPolicy.holdBackReason(decision, capKey: capKey, stateDirectory: configuration.stateDirectory.value) {
            return DeliveryReport.skipped(targets, reason: reason) { $0.recordedEnvironment ?? configuration.environment.value }
        }
        let credentials = try client.credentials ?? ProviderCredentials.load(from: configuration)
        client.credentials = credentials
        try CurlGlobal.load()
        let run = PushRun(configuration: configuration, policy: deliveryPolicy)
        return try run.send(request, to: targets, credentials: credentials, makeTransport: { [client] caFile, proxy, connectTimeout in
            if let existing = client.client { return existing }
            let made = CurlHTTP2Client(caFile: caFile, proxy: proxy, connectTimeout: connectTimeout)
            client.client = made
            return made
        }, warn: warn)
    }

    /// Waits for the delivery in progress, then closes the connection.
    func shutdown() async {
        try? await thread.shutdownGracefully()
        client.client = nil
    }
}
