#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdCore
import HTTPTypes
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import PushKitFreeCore
import PushKitFreeRegistry

/// `register-apns serve`: Hummingbird 2 serving `EndpointRouter`'s routes until SIGTERM or SIGINT, then
/// stopping gracefully: it stops accepting, lets requests in flight finish (their registry writes
/// and deliveries included), and returns.
package enum EndpointServer {
    /// The name the server's messages on standard error begin with.
    package static let tool = "register-apns serve"

    /// Why the server could not start, in words: the system's reason for a socket error (NIO's
    /// `IOError` names the call that failed, which says nothing to a user), with what to do about
    /// an address in use or refused.
    package static func describe(_ error: any Error) -> String {
        guard let failure = error as? IOError else { return "\(error)" }
        switch failure.errnoCode {
        case EADDRINUSE:
            return "the address is in use: another program listens there (choose another port with --listen, "
                + "or stop the other server)"
        case EACCES:
            return "permission denied: ports below 1024 need privileges (choose a port of 1024 or more with --listen)"
        case EADDRNOTAVAIL:
            return "no interface of this machine has that address (--listen takes one of this machine's addresses)"
        default:
            return String(cString: strerror(failure.errnoCode))
        }
    }

    /// Said at start when every route needs the secret: the Sven and Ember apps cannot send one.
    static let secretOnlyNote =
        "\(tool): warning: every route needs the secret, and the Sven and Ember apps send none: "
        + "unchanged, they get 401 on POST /register-apns and the gateway's WebSocket; let the phones' "
        + "network register without it with --open-registration CIDR (Tailscale's is 100.64.0.0/10)\n"

    /// Runs the server; returns after a graceful shutdown.
    /// - Throws: `ConfigurationError` for unusable TLS files, or the error binding the address.
    package static func run(_ settings: EndpointSettings) async throws {
        Self.unblockTerminationSignals()
        let metrics = EndpointMetrics()
        let delivery = EndpointDelivery(
            configuration: settings.configuration, deliveryPolicy: settings.deliveryPolicy,
            notificationPolicy: settings.notificationPolicy
        ) { warning in
            StandardStreams.writeError("\(tool): warning: \(warning)\n")
        }
        if let warning = ProviderCredentials.keyPermissionWarning(settings.configuration) {
            StandardStreams.writeError("\(tool): warning: \(warning)\n")
        }
        if let problem = delivery.problem() {
            StandardStreams.writeError("\(tool): warning: the notification routes will answer 503: \(problem.detail)\n")
        }
        if !settings.openRegistration.isEmpty {
            let networks = settings.openRegistration.map(\.description).joined(separator: ", ")
            StandardStreams.writeError(
                "\(tool): registration routes accept requests without the secret from \(networks)\n")
        } else if settings.secret != nil {
            StandardStreams.writeError(Self.secretOnlyNote)
        }
        if let secret = settings.secret, secret.serverKey == nil {
            StandardStreams.writeError(
                "\(tool): warning: the secret is shorter than \(SharedSecret.serverKeyMinimumLength) characters: "
                    + "/triggerReplyFinished leaves server_key out of its notifications (anyone who saw one "
                    + "could test guesses of the secret against it); make one with openssl rand -hex 32\n")
        }
        let openFiles = OpenFileLimit.raiseToHardLimit()
        let limit = ConnectionLimit(
            maximum: settings.maxConnections ?? ConnectionLimit.defaultMaximum(openFileLimit: openFiles ?? 1024),
            perClientMaximum: settings.maxConnectionsPerClient
        ) { event in metrics.connection(event) }
        let service = EndpointService(settings: settings, delivery: delivery, metrics: metrics)
        if let registry = service.registry.file,
            let mode = PosixFile.permissionsOpenToOthers(of: registry.path)
        {
            StandardStreams.writeError(
                "\(tool): warning: \(registry.path) is readable by other users (mode \(String(mode, radix: 8))); "
                    + "chmod 600 it (the tools keep a file's mode when they replace it)\n")
        }
        // The state file is read before the server listens, not by the first registration (a
        // large one is also given its journal_base now; see `StateFileRegistry.prepareJournal`).
        // A database is not: it may be down at start, which the routes answer 503 for.
        service.registry.file?.prepareJournal()

        var logger = Logger(label: "register-apns-serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .error
        let scheme = settings.tls == nil ? "http" : "https"
        var app = Application(
            router: EndpointRouter.make(service),
            server: try serverBuilder(service, limit: limit, socketRouter: GatewayRoutes.socketRouter(service)),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.listen.host, port: settings.listen.port),
                serverName: nil, reuseAddress: true),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? settings.listen.port
                let host = settings.listen.host.contains(":") ? "[\(settings.listen.host)]" : settings.listen.host
                StandardStreams.writeError("\(tool): listening on \(scheme)://\(host):\(port)\n")
            },
            logger: logger
        )
        // Stopped in the reverse order: the server, then the write queue (its journal folded), then
        // the delivery thread (the send in progress finished, the connection closed).
        app.addServices(
            StopOnShutdown(description: "delivery") { await delivery.shutdown() },
            StopOnShutdown(description: "registry writes") { await service.writes.shutdown() })
        try await app.runService() // graceful on SIGTERM and SIGINT
        StandardStreams.writeError("\(tool): stopped\n")
    }

    /// How long a WebSocket's closing handshake may take before the connection is closed anyway.
    static let socketCloseTimeout: Duration = .seconds(2)

    /// How often an upgraded connection is pinged: every `--idle-timeout`, at most every 30 seconds.
    /// A ping still unanswered at the next one closes the connection.
    static func socketPingInterval(idleTimeout: Duration) -> Duration {
        min(idleTimeout, .seconds(30))
    }

    /// HTTP/1.1 with the WebSocket upgrade of `/gateway/ws`, over TLS when the settings say; at most
    /// `limit` connections, each with `--header-timeout` to send its request head.
    private static func serverBuilder(
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

    /// A parent may start the server with SIGTERM blocked (Foundation's Process does): unblock the
    /// signals the graceful shutdown listens for before any thread is started.
    private static func unblockTerminationSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
