import PushKitFreeCore

/// Everything `register-apns serve` was started with, checked.
package struct EndpointSettings: Sendable {
    /// The shared configuration: state file, provider key, topic, environment, APNs URL, proxy.
    package var configuration: Configuration
    /// `--listen`: the address and port to serve on.
    package var listen: ListenAddress
    /// `nil` only with `--no-auth` on a loopback address.
    package var secret: SharedSecret?
    /// Registration requests a client may make per minute; 0 = no limit.
    package var rateLimit: Int
    /// PEM certificate chain and private key for HTTPS; `nil` for plain HTTP.
    package var tls: (certificate: String, key: String)?
    /// Retries and deadline of each send.
    package var deliveryPolicy: DeliveryPolicy
    /// Quiet hours, frequency cap (the config file's, as `send-push` applies them).
    package var notificationPolicy: NotificationPolicy
    /// `--open-registration`: networks whose peers may use the registration routes without the
    /// secret (never the routes that list, remove or send).
    package var openRegistration: [IPNetwork]
    /// How long a connection may take from being accepted (its TLS handshake included) to a complete
    /// request head; past it, it is closed without an answer.
    package var headerTimeout: Duration
    /// How long a connection may stay open between requests (keep-alive) before it is closed.
    package var idleTimeout: Duration
    /// The most connections held at once; `nil` for the open-file limit less
    /// `ConnectionLimit.reservedDescriptors`. Past it, the oldest connection still waiting for its
    /// request head is closed to make room.
    package var maxConnections: Int?
    /// The most connections held at once from one client address (an IPv6 address's /64); `nil` for
    /// a quarter of `maxConnections`, at least 16. Past it, that client's connection idle longest is
    /// closed to make room, or the new one when all of its connections are busy.
    package var maxConnectionsPerClient: Int?

    /// Checks the combination: a secret is required unless `noAuth` on loopback, `--no-auth` never
    /// on an address others can reach, and `--open-registration` only beside a secret (with
    /// `--no-auth` every route is open already).
    /// - Throws: `ConfigurationError` (64 for a flag combination, 78 for the secret file).
    package init(
        configuration: Configuration, listen: ListenAddress, secretFile: String?, noAuth: Bool, rateLimit: Int,
        tls: (certificate: String, key: String)?, deliveryPolicy: DeliveryPolicy,
        notificationPolicy: NotificationPolicy,
        openRegistration: [IPNetwork] = [],
        headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), maxConnections: Int? = nil,
        maxConnectionsPerClient: Int? = nil
    ) throws(ConfigurationError) {
        if noAuth && secretFile != nil {
            throw ConfigurationError("--no-auth and --secret-file cannot be used together", exitStatus: .usage)
        }
        if noAuth && !openRegistration.isEmpty {
            throw ConfigurationError(
                "--open-registration goes with --secret-file: with --no-auth every route is open already",
                exitStatus: .usage)
        }
        if noAuth && !listen.isLoopback {
            throw ConfigurationError(
                "--no-auth is only allowed on a loopback address (127.0.0.1, ::1, localhost), not \(listen.host) "
                    + "(it must resolve to loopback addresses only): anyone who can reach \(listen) could "
                    + "register devices and send notifications",
                exitStatus: .usage)
        }
        if !noAuth && secretFile == nil {
            throw ConfigurationError(
                listen.isLoopback
                    ? "give --secret-file FILE (a file only you can read), or --no-auth to serve \(listen) without authentication"
                    : "listening on \(listen) needs a secret: give --secret-file FILE (a file only you can read)",
                exitStatus: .usage)
        }
        self.configuration = configuration
        self.listen = listen
        secret = try secretFile.map { path throws(ConfigurationError) in try SharedSecret.load(path: path) }
        self.rateLimit = rateLimit
        self.tls = tls
        self.deliveryPolicy = deliveryPolicy
        self.notificationPolicy = notificationPolicy
        self.openRegistration = openRegistration
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
    }
}
