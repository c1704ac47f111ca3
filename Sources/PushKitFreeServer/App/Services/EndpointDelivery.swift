#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import PushKitFreeCore
import PushKitFreeRegistry
import PushKitFreeTransport
import ServiceLifecycle

/// The endpoint's notification routes on the core's one send pipeline (`PushSender`), the same one
/// `send-push` uses: the same policy (quiet hours, frequency cap), retries, pruning and environment
/// learning. This type only adds what a server needs around it.
///
/// A service of the endpoint's application: sends run one at a time on a thread of the service's
/// own (a `NIOThreadPool` of one thread that `run()` starts and shuts down), over one libcurl
/// HTTP/2 client kept for the life of the server: the connection to APNs stays open between
/// requests (Apple asks providers to keep connections open rather than open one per
/// notification), so a webhook costs one round trip, not a TLS handshake. libcurl's client is
/// driven by one thread only, which the single thread guarantees, and its blocking waits stay off
/// the server's event loops and Swift's cooperative pool. The provider credentials are loaded once
/// they load, so a webhook reads and parses no key file.
///
/// It stops on the application's graceful shutdown, after the server and the registry writes: the
/// sends handed to it are finished first, then the connection is closed.
final class EndpointDelivery: Service, Sendable {
    let sender: PushSender
    private let inbox = WorkInbox<@Sendable () -> Void>()
    private let state: DeliveryThreadState
    private let warn: @Sendable (String) -> Void

    /// The transport source and the loaded credentials: touched only on the delivery thread.
    private final class DeliveryThreadState: @unchecked Sendable {
        let transports = CurlTransportSource(keepsClient: true)
        var credentials: ProviderCredentials?
    }

    var configuration: Configuration { sender.configuration }

    init(
        configuration: Configuration, deliveryPolicy: DeliveryPolicy, notificationPolicy: NotificationPolicy,
        warn: @escaping @Sendable (String) -> Void
    ) {
        state = DeliveryThreadState()
        sender = PushSender(
            configuration: configuration, notificationPolicy: notificationPolicy,
            deliveryPolicy: deliveryPolicy, transports: state.transports, devices: configuration.registry())
        self.warn = warn
    }

    /// Sends what the routes hand over until the application's graceful shutdown (or the task's
    /// cancellation); then finishes the sends still waiting, closes the connection and returns.
    func run() async throws {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await thread.runIfActive { self.performUntilClosed() }
            } onGracefulShutdown: {
                self.inbox.close()
            }
        } onCancel: {
            self.inbox.close()
        }
        try? await thread.runIfActive { [state] in state.transports.close() }
        try? await thread.shutdownGracefully()
    }

    /// The delivery thread's loop: runs each job handed over, one after the other, until the inbox
    /// is closed and empty.
    private func performUntilClosed() {
        while true {
            let (jobs, closed) = inbox.wait(timeout: nil)
            for job in jobs { job() }
            if closed && jobs.isEmpty { return }
        }
    }

    /// Runs `work` on the delivery thread, after the sends handed over before it.
    /// - Throws: what `work` throws, or `Stopped` once the delivery has stopped.
    private func onDeliveryThread<Result: Sendable>(
        _ work: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = inbox.add { continuation.resume(with: Swift.Result { try work() }) }
            if !accepted { continuation.resume(throwing: Stopped()) }
        }
    }

    /// A send handed over after the delivery stopped.
    struct Stopped: Error, CustomStringConvertible {
        var description: String { "the delivery has stopped" }
    }

    /// What stands in the way of sending at all: no topic, an unusable provider key or identifiers,
    /// or no libcurl. `summary` names which, in words fit for an HTTP answer (no paths); `detail`
    /// is the whole message, for the server's log. `nil` when sending can work.
    func problem() -> (summary: String, detail: String)? {
        do {
            try sender.checkReady()
        } catch {
            return (summary(of: error), String(describing: error))
        }
        return nil
    }

    /// What kind of problem `error` is, without the paths and system messages it carries.
    func summary(of error: any Error) -> String {
        if configuration.topic == nil { return "no topic (the app's bundle id) is configured" }
        if let caFile = configuration.caFile, CertificateAuthorityFile.problem(caFile) != nil {
            return "the CA file (ca_file) cannot be used"
        }
        return switch error {
        case is ProviderKeyError, is ConfigurationError: "the provider key or its key id and team id cannot be used"
        case is LibcurlUnavailable: "libcurl cannot be loaded"
        default: "sending failed"
        }
    }

    /// Sends `spec` with `urgency` (the interruption level and the config's category for it; none by
    /// default) to `audience` (every device by default) through the pipeline: prepared here,
    /// so a payload APNs would refuse is answered at once, then sent on the delivery thread, where
    /// the registry is read off the server's event loops.
    /// - Returns: the report; no results when the audience holds no device.
    /// - Throws: `EndpointError` 400 for a payload APNs would refuse (413 when it is only too large),
    ///   404 when a named device was removed before the send, 503 when sending is not set up (no
    ///   topic, no key, no libcurl), 500 when the registry cannot be read; neither 503 nor 500
    ///   puts a path in its message (the log detail has it).
    func send(
        _ spec: PushSpecification, urgency: Urgency? = nil, to audience: PushSender.Audience = .everyDevice
    ) async throws(EndpointError)
        -> DeliveryReport
    {
        let prepared: PushSender.PreparedPush
        do {
            prepared = try sender.prepare(spec, urgency: urgency, audience: audience)
        } catch let error as PayloadError {
            // A notification too large for APNs is 413, like a body over the limit: the request is
            // well formed, only too big.
            if case .tooLarge = error { throw .tooLarge(error.description) }
            throw .badRequest(error.worded(naming: Self.requestField))
        } catch {
            throw unavailable(error)
        }
        do {
            return try await onDeliveryThread { [self] in
                try deliver(prepared)
            }
        } catch let error as RegistryError {
            throw .registry("cannot be read", error)
        } catch is DeliverySelectionError {
            throw .deviceNotFound("the device was removed before the notification was sent")
        } catch {
            throw unavailable(error)
        }
    }

    /// A setting as the notification routes' request bodies name it: `"badge"`; settings no body
    /// sets in the core's words.
    static func requestField(_ setting: SendSetting) -> String {
        switch setting {
        case .title, .subtitle, .body, .badge, .category, .data, .encrypt, .image, .volume: "\"\(setting.rawValue)\""
        case .interruptionLevel: "\"urgency\""
        default: setting.phrase
        }
    }

    /// The 503 for an error that stops sending: its kind for the client, the whole of it for the log.
    private func unavailable(_ error: any Error) -> EndpointError {
        .unavailable(
            "sending is not possible on this server: \(summary(of: error))",
            logDetail: String(describing: error))
    }

    /// On the delivery thread.
    private func deliver(_ prepared: PushSender.PreparedPush) throws -> DeliveryReport {
        // What a key-scope answer or an expired token means goes to the server's log, once per
        // send: the HTTP answer carries APNs' reason per device, as for every other answer.
        try sender.sendKeepingCredentials(prepared, credentials: &state.credentials, warn: warn)
    }
}
