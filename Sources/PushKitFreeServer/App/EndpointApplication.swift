#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import PushKitFreeCore
import PushKitFreeRegistry

/// The endpoint of `register-apns serve`, assembled: what `EndpointServer.run` runs and what the
/// in-process tests build (with a temporary directory's registry, through HummingbirdTesting's
/// `.router` or `.live`), so that what is tested is what ships.
///
/// One application holds the router (middleware, then each feature's route group), the server
/// (HTTP/1.1 with the gateway's WebSocket upgrade, over TLS when configured, at most
/// `--max-connections` connections, `--header-timeout` for a request head) and the background work
/// as services. Hummingbird starts its server after the application's services, once the state
/// file has been read and its journal prepared (`RegistryWriteQueue.prepare`, before listening), and
/// stops it first, so by the time the registry writes and the delivery stop, no request is left
/// that could hand them anything.
///
/// - Parameter settings: the server's settings; the start-up warnings go to standard error.
/// - Throws: `ConfigurationError` for unusable TLS files.
func buildApplication(_ settings: EndpointSettings) throws -> some ApplicationProtocol {
    let parts = EndpointParts(settings: settings)
    EndpointServer.warnAtStart(parts)
    return try buildApplication(parts)
}

/// The endpoint assembled from `parts`: what `buildApplication(_:)` builds once it has warned
/// about the settings, and what the in-process tests build from parts whose registry they read.
func buildApplication(_ parts: EndpointParts) throws -> some ApplicationProtocol {
    let settings = parts.settings
    let metrics = parts.metrics
    let openFiles = OpenFileLimit.raiseToHardLimit()
    let limit = ConnectionLimit(
        maximum: settings.maxConnections ?? ConnectionLimit.defaultMaximum(openFileLimit: openFiles ?? 1024),
        perClientMaximum: settings.maxConnectionsPerClient
    ) { event in metrics.connection(event) }
    if let registry = parts.registrations.registry.file,
        let mode = PosixFile.permissionsOpenToOthers(of: registry.path)
    {
        StandardStreams.writeError(
            "\(EndpointServer.tool): warning: \(registry.path) is readable by other users "
                + "(mode \(String(mode, radix: 8))); chmod 600 it (the tools keep a file's mode when they replace it)\n"
        )
    }

    var logger = Logger(label: "register-apns-serve") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .error
    let scheme = settings.tls == nil ? "http" : "https"
    let auth = parts.gatewayAuth
    var app = Application(
        router: EndpointRouter.make(parts),
        server: try EndpointServerBuilder.make(
            settings, limit: limit, auth: auth, metrics: metrics,
            socketRouter: GatewayRoutes.socketRouter(
                GatewaySocket(
                    registrations: parts.registrations, limiter: parts.limiter, auth: auth, metrics: metrics))),
        configuration: ApplicationConfiguration(
            address: .hostname(settings.listen.host, port: settings.listen.port),
            serverName: nil, reuseAddress: true),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? settings.listen.port
            let host = settings.listen.host.contains(":") ? "[\(settings.listen.host)]" : settings.listen.host
            StandardStreams.writeError("\(EndpointServer.tool): listening on \(scheme)://\(host):\(port)\n")
        },
        logger: logger
    )
    // Hummingbird starts the services before the server and stops them in the reverse order: the
    // server (no request left in flight), then the questions' expiry loop, then the write queue
    // (the changes handed to it written, the journal folded), then the delivery (the sends handed
    // to it finished, the connection closed).
    app.addServices(parts.sender.delivery, parts.registrations.writes, parts.questions)
    let writes = parts.registrations.writes
    app.beforeServerStarts { await writes.prepare() }
    return app
}

/// What the endpoint is made of, before `buildApplication` assembles it: the registry and its
/// write queue, the delivery, the metrics, the health check and the per-client allowances. Each
/// route collection is given the few of these it uses.
struct EndpointParts: Sendable {
    let settings: EndpointSettings
    /// The registry: read directly, written through the batching write queue.
    let registrations: DeviceRegistrations
    /// The send pipeline on the delivery thread.
    let sender: NotificationSender
    let metrics: EndpointMetrics
    let health: EndpointHealth
    /// The per-client allowance of registry changes: `RateLimitMiddleware` spends it per request on
    /// the registration routes, the gateway per message that changes the registry.
    let limiter: RateLimiter
    /// The per-client allowance of failed authentications (`AuthMiddleware`), as many a minute as
    /// registrations; a wrong answer token spends from it too.
    let authFailures: RateLimiter
    /// The questions asked of the phone, kept beside the registry.
    let questions: EndpointQuestions

    init(settings: EndpointSettings) {
        // A record the registry cannot use is named in the server's log, once, when first read.
        RegistryWarnings.setHandler { warning in
            StandardStreams.writeError("\(EndpointServer.tool): warning: \(warning)\n")
        }
        self.settings = settings
        let metrics = EndpointMetrics()
        let delivery = EndpointDelivery(
            configuration: settings.configuration, deliveryPolicy: settings.deliveryPolicy,
            notificationPolicy: settings.notificationPolicy
        ) { warning in
            StandardStreams.writeError("\(EndpointServer.tool): warning: \(warning)\n")
        }
        let registry = settings.configuration.registry(appendingToJournal: true)
        let writes = RegistryWriteQueue(
            registry: registry, foldDelay: settings.configuration.registryTuning.journalIdle
        ) { size in metrics.registryBatch(size: size) }
        registrations = DeviceRegistrations(registry: registry, writes: writes, metrics: metrics)
        sender = NotificationSender(delivery: delivery, metrics: metrics)
        self.metrics = metrics
        limiter = RateLimiter(perMinute: settings.rateLimit)
        authFailures = RateLimiter(perMinute: settings.rateLimit)
        questions = EndpointQuestions(
            store: settings.configuration.questionStore(), registrations: registrations, sender: sender,
            publicURL: settings.configuration.publicURL?.value, failures: authFailures
        ) { warning in
            StandardStreams.writeError("\(EndpointServer.tool): warning: \(warning)\n")
        }
        health = EndpointHealth(registry: registry, writes: writes, delivery: delivery) { line in
            StandardStreams.writeError("\(EndpointServer.tool): \(line)\n")
        }
    }

    /// The gateway's authentication: the secret, or a peer on an `--open-registration` network.
    var gatewayAuth: AuthMiddleware {
        AuthMiddleware(secret: settings.secret, openRegistration: settings.openRegistration, failures: authFailures)
    }
}

/// The endpoint's server: HTTP/1.1 with the WebSocket upgrade of `/gateway/ws`, over TLS when the
/// settings say; at most `limit` connections, each with `--header-timeout` to send its request head.
enum EndpointServerBuilder {
    /// How long a WebSocket's closing handshake may take before the connection is closed anyway.
    static let socketCloseTimeout: Duration = .seconds(2)

    /// How often an upgraded connection is pinged: every `--idle-timeout`, at most every 30 seconds.
    /// A ping still unanswered at the next one closes the connection.
    static func socketPingInterval(idleTimeout: Duration) -> Duration {
        min(idleTimeout, .seconds(30))
    }

    /// The server builder; one connection's pipeline is built once on an in-memory channel first
    /// (`PipelineWarmUp`), before any event loop builds one.
    /// - Throws: `ConfigurationError` for unusable TLS files.
    static func make(
        _ settings: EndpointSettings, limit: ConnectionLimit, auth: AuthMiddleware, metrics: EndpointMetrics,
        socketRouter: Router<EndpointRequestContext>
    ) throws -> HTTPServerBuilder {
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: TimeAmount(settings.idleTimeout)),
            ws: .init(
                maxFrameSize: GatewayMessage.sizeLimit,
                autoPing: .enabled(timePeriod: socketPingInterval(idleTimeout: settings.idleTimeout)),
                closeTimeout: socketCloseTimeout))
        let socketResponder = socketRouter.buildResponder()
        let child = { @Sendable (responder: @escaping HTTPChannelHandler.Responder) in
            GatewayUpgradeChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: socketResponder, configuration: configuration),
                headerTimeout: settings.headerTimeout, limit: limit, auth: auth,
                timedOut: { deadline in metrics.timedOut(deadline) })
        }
        PipelineWarmUp.run(child { _, _, _ in }, logger: Logger(label: "warm-up") { _ in SwiftLogNoOpLogHandler() })
        let http1 = HTTPServerBuilder { responder in child(responder) }
        guard let tls = settings.tls else { return http1 }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(key))
            return try .tls(http1, tlsConfiguration: configuration)
        } catch {
            throw ConfigurationError("--tls-cert \(tls.certificate) / --tls-key \(tls.key) cannot be used: \(error)")
        }
    }
}
