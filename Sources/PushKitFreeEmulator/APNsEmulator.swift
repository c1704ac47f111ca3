#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import PushKitFreeCore
import Synchronization

/// A local APNs: an HTTP/2 server (TLS with ALPN `h2`, or prior knowledge, on one port) that
/// judges provider API requests like Apple's and records each one.
///
/// Life cycle: `init` (checks the TLS material), `start()` (binds; returns the port),
/// `openOutputs()` once the caller has printed its `listening on` line, then `waitUntilStopped()`
/// until `stop()` or a signal from `stopOnSignals`.
package final class APNsEmulator: Sendable {
    /// What the emulator was started with.
    package let configuration: EmulatorConfiguration
    private let services: EmulatorServices
    private let sslContext: NIOSSLContext
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let managementChannel = Mutex<(any Channel)?>(nil)
    private let signalSources = Mutex<SignalSources?>(nil)

    /// - Parameters:
    ///   - recordDescriptor: where records go (1 for standard output, or an open `--record` file).
    ///   - closesRecordDescriptor: whether to close it at the end.
    ///   - quiet: leaves out the one-line summaries on standard error.
    /// - Throws: `EmulatorSetupError` (78) when the certificate or key cannot be used.
    package init(
        configuration: EmulatorConfiguration, recordDescriptor: Int32, closesRecordDescriptor: Bool, quiet: Bool
    ) throws(EmulatorSetupError) {
        self.configuration = configuration
        var answerTrust: [NIOSSLCertificate] = []
        if let pem = configuration.answerTrustPEM {
            do {
                answerTrust = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
            } catch {
                throw EmulatorSetupError(
                    "cannot use the --answer-ca certificates: \(error)", exitStatus: .configuration)
            }
            if answerTrust.isEmpty {
                throw EmulatorSetupError(
                    "the --answer-ca file holds no PEM certificate", exitStatus: .configuration)
            }
        }
        services = EmulatorServices(
            configuration: configuration, answerTrust: answerTrust,
            records: OutputBuffer(descriptor: recordDescriptor, closesDescriptor: closesRecordDescriptor),
            summaries: quiet ? nil : OutputBuffer(descriptor: 2, closesDescriptor: false)
        )
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(configuration.tls.certificateChainPEM.utf8))
            let key = try NIOSSLPrivateKey(bytes: Array(configuration.tls.privateKeyPEM.utf8), format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            // HTTP/1.1 is offered second, for Google's routes (OAuth and FCM clients often speak it).
            tls.applicationProtocols = ["h2", "http/1.1"]
            tls.minimumTLSVersion = .tlsv12
            // When the emulator closes a connection (after GOAWAY, or at shutdown) it sends
            // close_notify and closes without waiting long for the client's: a busy client may never
            // answer it, and NIOSSL's default 5 s would keep a dead connection open, and with it
            // the client's only connection slot.
            tls.shutdownTimeout = .milliseconds(100)
            sslContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw EmulatorSetupError(
                "cannot use the TLS certificate and key (\(configuration.tls.caPath)): \(error)",
                exitStatus: .configuration)
        }
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads ?? System.coreCount))
    }

    /// Binds and starts accepting connections; returns the port (useful with port 0). With
    /// `managePort`, the channel management listener is bound too (see `managementPort`).
    /// - Throws: `EmulatorSetupError` (69) when the address cannot be bound.
    package func start() throws(EmulatorSetupError) -> Int {
        let channel = try bind(port: configuration.port, management: false)
        serverChannel.withLock { $0 = channel }
        if let managePort = configuration.managePort {
            let management: any Channel
            do {
                management = try bind(port: managePort, management: true)
            } catch {
                channel.close(promise: nil)
                try? group.syncShutdownGracefully()
                throw error
            }
            managementChannel.withLock { $0 = management }
        }
        return channel.localAddress?.port ?? configuration.port
    }

    /// The `aud` FCM assertions must name (the service account's `token_uri`), once the port is
    /// known; `nil` when FCM is not served.
    package var fcmTokenURI: String? {
        get { services.fcm?.tokenURI }
        set { if let newValue { services.fcm?.tokenURI = newValue } }
    }

    /// The port of the channel management listener, once started; `nil` without `managePort`.
    package var managementPort: Int? {
        managementChannel.withLock { $0?.localAddress?.port }
    }

    private func bind(port: Int, management: Bool) throws(EmulatorSetupError) -> any Channel {
        let services = self.services
        let sslContext = self.sslContext
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configureConnection(
                        channel, services: services, sslContext: sslContext, management: management)
                }
            }
        do {
            return try bootstrap.bind(host: configuration.host, port: port).wait()
        } catch {
            if !management { try? group.syncShutdownGracefully() }
            throw EmulatorSetupError(
                "cannot listen on \(configuration.host):\(port): \(Self.describe(error))", exitStatus: .unavailable)
        }
    }

    /// Lets records and summaries through (held back until the `listening on` line is out).
    package func openOutputs() {
        services.records.open()
        services.summaries?.open()
    }

    /// Stops on SIGINT and SIGTERM (and ignores SIGPIPE, so a closed record pipe only stops the
    /// records).
    package func stopOnSignals() {
        signal(SIGPIPE, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.stop() }
            source.resume()
            return source
        }
        let kept = SignalSources(sources)
        signalSources.withLock { $0 = kept }
    }

    /// Stops accepting connections; `waitUntilStopped()` then returns.
    package func stop() {
        let channel = serverChannel.withLock { $0 }
        channel?.close(promise: nil)
        managementChannel.withLock { $0 }?.close(promise: nil)
    }

    /// Blocks until `stop()`, then closes every connection and writes out the records.
    package func waitUntilStopped() {
        if let channel = serverChannel.withLock({ $0 }) {
            try? channel.closeFuture.wait()
        }
        try? group.syncShutdownGracefully()
        services.flushOutputs()
        services.records.close()
    }

    /// - Parameter management: whether the connection came to the channel management listener.
    private static func configureConnection(
        _ channel: any Channel, services: EmulatorServices, sslContext: NIOSSLContext, management: Bool
    ) throws {
        let connection = services.state.nextConnectionNumber()
        let resetter = ConnectionResetHandler()
        let silencer = ConnectionSilencer()
        let report: (any Error) -> Void = { services.report($0, connection: connection) }
        let configureHTTP2: (ChannelHandlerContext) throws -> Void = { context in
            let settings: HTTP2Settings = [
                HTTP2Setting(parameter: .maxConcurrentStreams, value: 1),
                HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
            ]
            let http2 = NIOHTTP2Handler(mode: .server, initialSettings: settings)
            let handler = APNsConnectionHandler(
                services: services, resetter: resetter, silencer: silencer,
                connection: connection, management: management)
            try context.pipeline.syncOperations.addHandlers([http2, handler], position: .after(context.handler))
        }
        let configureHTTP1: (ChannelHandlerContext) throws -> Void = { context in
            try context.pipeline.syncOperations.configureHTTPServerPipeline(
                position: .last, withPipeliningAssistance: true, withErrorHandling: true)
            try context.pipeline.syncOperations.addHandler(FCMHTTP1Handler(services: services, connection: connection))
        }
        let allowsHTTP1 = services.fcm != nil && !management
        let sniffer = ProtocolSniffer(
            allowsTLS: true, allowsHTTP1: allowsHTTP1,
            configure: { found, context in
                switch found {
                case .http2:
                    try configureHTTP2(context)
                case .http1:
                    try configureHTTP1(context)
                case .tls:
                    let tls = NIOSSLServerHandler(context: sslContext)
                    let inner = ProtocolSniffer(
                        allowsTLS: false, allowsHTTP1: allowsHTTP1,
                        configure: { found, context in
                            if found == .http1 { try configureHTTP1(context) } else { try configureHTTP2(context) }
                        }, reportError: report)
                    try context.pipeline.syncOperations.addHandlers([tls, inner], position: .after(context.handler))
                }
            }, reportError: report)
        try channel.pipeline.syncOperations.addHandlers([silencer, resetter, sniffer])
        services.track(silencer, connection: connection, channel: channel)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        return "\(error)"
    }
}

/// Keeps the signal sources alive for the emulator's lifetime. Dispatch sources are thread-safe;
/// they are only created, resumed and held here.
private final class SignalSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
}
