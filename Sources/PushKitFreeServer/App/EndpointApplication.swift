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
/// as services. Hummingbird runs its server after the application's services and stops it first,
/// so by the time the registry writes and the delivery stop, no request is left that could hand
/// them anything.
///
/// - Parameter settings: the server's settings; the start-up warnings go to standard error.
/// - Throws: `ConfigurationError` for unusable TLS files.
func buildApplication(_ settings: EndpointSettings) throws -> some ApplicationProtocol {
    let service = EndpointService(settings: settings)
    EndpointServer.warnAtStart(service)
    return try buildApplication(service)
}

/// The endpoint assembled around `service` (its registry, delivery and metrics): what
/// `buildApplication(_:)` builds once it has warned about the settings, and what the in-process
/// tests build around a service whose registry they read.
func buildApplication(_ service: EndpointService) throws -> some ApplicationProtocol {
    let settings = service.settings
    let metrics = service.metrics
    let openFiles = OpenFileLimit.raiseToHardLimit()
    let limit = ConnectionLimit(
        maximum: settings.maxConnections ?? ConnectionLimit.defaultMaximum(openFileLimit: openFiles ?? 1024),
        perClientMaximum: settings.maxConnectionsPerClient
    ) { event in metrics.connection(event) }
    if let registry = service.registry.file, let mode = PosixFile.permissionsOpenToOthers(of: registry.path) {
        StandardStreams.writeError(
            "\(EndpointServer.tool): warning: \(registry.path) is readable by other users "
                + "(mode \(String(mode, radix: 8))); chmod 600 it (the tools keep a file's mode when they replace it)\n"
        )
    }
    // The state file is read before the server listens, not by the first registration (a
    // large one is also given its journal_base now; see `DeviceRegistry.prepareJournal`).
    // A database is not: it may be down at start, which the routes answer 503 for.
    service.registry.file?.prepareJournal()

    var logger = Logger(label: "register-apns-serve") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .error
    let scheme = settings.tls == nil ? "http" : "https"
    var app = Application(
        router: EndpointRouter.make(service),
        server: try EndpointServerBuilder.make(
            service, limit: limit, socketRouter: GatewayRoutes.socketRouter(service)),
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
    // Stopped in the reverse order: the server, then the write queue (its journal folded), then
    // the delivery thread (the send in progress finished, the connection closed).
    app.addServices(
        StopOnShutdown(description: "delivery") { await service.delivery.shutdown() },
        StopOnShutdown(description: "registry writes") { await service.writes.shutdown() })
    return app
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
        _ service: EndpointService, limit: ConnectionLimit, socketRouter: Router<EndpointRequestContext>
    ) throws -> HTTPServerBuilder {
        let settings = service.settings
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: TimeAmount(settings.idleTimeout)),
            ws: .init(
                maxFrameSize: GatewayMessage.sizeLimit,
                autoPing: .enabled(timePeriod: socketPingInterval(idleTimeout: settings.idleTimeout)),
                closeTimeout: socketCloseTimeout))
        let socketResponder = socketRouter.buildResponder()
        let metrics = service.metrics
        let child = { @Sendable (responder: @escaping HTTPChannelHandler.Responder) in
            GatewayUpgradeChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: socketResponder, configuration: configuration),
                headerTimeout: settings.headerTimeout, limit: limit, auth: GatewayRoutes.auth(service),
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
