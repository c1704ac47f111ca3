import ArgumentParser

/// The options of `register-apns serve`, declared once for both programs that show them: the
/// `register-apns-serve` program that parses and serves, and `register-apns`'s `serve` subcommand,
/// which runs that program but declares the options so that `register-apns`'s completion scripts
/// and manual page know them.
package struct ServeOptions: ParsableArguments {
    /// `--listen`: `host:port` to listen on, checked by `ListenAddress(parsing:)`; port 0 picks a free one.
    @Option(help: ArgumentHelp("Address and port to listen on; port 0 picks a free one.", valueName: "host:port"))
    package var listen = "127.0.0.1:8100"

    /// `--secret-file`: the file holding the shared secret; required unless `--no-auth`.
    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp("File holding the shared secret (mode 600).", valueName: "file"))
    package var secretFile: String?

    /// `--no-auth`: serve without a secret, allowed only on a loopback address.
    @Flag(name: .customLong("no-auth"), help: "Serve without a secret (loopback addresses only).")
    package var noAuth = false

    /// `--tls-cert`: PEM certificate chain for HTTPS; `nil` (with `tlsKey`) serves plain HTTP.
    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("Serve HTTPS with this PEM certificate chain.", valueName: "file"))
    package var tlsCertificate: String?

    /// `--tls-key`: the PEM private key of `tlsCertificate`; the two go together.
    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    package var tlsKey: String?

    /// `--open-registration`: comma-separated CIDR networks whose peers may use the registration routes
    /// without the secret; each value may list several, and the option may be repeated.
    @Option(
        name: .customLong("open-registration"),
        help: ArgumentHelp(
            "Let the registration routes accept requests without the secret from these networks "
                + "(e.g. 192.168.1.0/24,100.64.0.0/10): anyone there can register a device that then gets "
                + "your notifications.",
            valueName: "cidr[,cidr...]"))
    package var openRegistration: [String] = []

    /// `--rate-limit`: registration requests a client may make per minute; 0 turns the limit off.
    @Option(
        name: .customLong("rate-limit"), parsing: .unconditional,
        help: ArgumentHelp("Registration requests per client per minute; 0 turns the limit off.", valueName: "n"))
    package var rateLimit = 30

    /// `--header-timeout`: seconds from accept to a complete request head, and from head to end of body.
    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp(
            "Seconds a connection has from accept (TLS handshake included) to a complete request head, "
                + "and a request from its head to the end of its body.",
            valueName: "seconds"))
    package var headerTimeout: Double = 10

    /// `--idle-timeout`: seconds a kept-alive connection may wait for its next request.
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Seconds a kept-alive connection may wait for its next request.", valueName: "seconds"))
    package var idleTimeout: Double = 60

    /// `--max-connections`: connections held at once; `nil` for the open-file limit less 128.
    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections held at once (default: the open-file limit less 128); past it the one idle "
                + "longest (no request head yet, or its last request answered) is closed.",
            valueName: "n"))
    package var maxConnections: Int?

    /// `--max-connections-per-client`: connections held at once from one address; `nil` for a quarter
    /// of `--max-connections`, at least 16.
    @Option(
        name: .customLong("max-connections-per-client"),
        help: ArgumentHelp(
            "Connections held at once from one client address, an IPv6 address's /64 (default: a quarter "
                + "of --max-connections, at least 16); past it that client's connection idle longest is "
                + "closed. Behind a reverse proxy, set it to --max-connections.",
            valueName: "n"))
    package var maxConnectionsPerClient: Int?

    /// `--retries` and `--timeout`, the timeout limiting each send.
    /// `--public-url`: the address phones reach the endpoint at, for a question's answer URL.
    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "The URL phones reach this endpoint at from outside (a question's answer URL); default: the asking request's host.",
            valueName: "url"))
    package var publicURL: String?

    @OptionGroup(title: "Delivery") package var delivery: DeliveryOptions<RequestDeliveryDefaults>

    /// The configuration flags `send-push` also takes: config, provider key, environment, APNs URL, state file.
    @OptionGroup package var shared: SharedOptions

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Rejects `--tls-cert` without `--tls-key` or the reverse, a negative `--rate-limit`, timeouts outside
    /// (0, 86400] seconds and `--max-connections` or `--max-connections-per-client` below 1; `EndpointSettings` checks the rest.
    package func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if rateLimit < 0 { throw ValidationError("--rate-limit must be 0 or more, not \(rateLimit)") }
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout)]
        where !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(name) must be a number of seconds above 0 and at most 86400, not \(seconds)")
        }
        if let maxConnections, maxConnections < 1 {
            throw ValidationError("--max-connections must be 1 or more, not \(maxConnections)")
        }
        if let maxConnectionsPerClient, maxConnectionsPerClient < 1 {
            throw ValidationError("--max-connections-per-client must be 1 or more, not \(maxConnectionsPerClient)")
        }
    }
}
