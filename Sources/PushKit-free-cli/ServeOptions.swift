import ArgumentParser

/// The options of `register-apns serve`, declared once for both programs that show them: the
/// `register-apns-serve` program that parses and serves, and `register-apns`'s `serve` subcommand,
/// which runs that program but declares the options so that `register-apns`'s completion scripts
/// and manual page know them.
public struct ServeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Address and port to listen on; port 0 picks a free one.", valueName: "host:port"))
    public var listen = "127.0.0.1:8100"

    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp("File holding the shared secret (mode 600).", valueName: "file"))
    public var secretFile: String?

    @Flag(name: .customLong("no-auth"), help: "Serve without a secret (loopback addresses only).")
    public var noAuth = false

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("Serve HTTPS with this PEM certificate chain.", valueName: "file"))
    public var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    public var tlsKey: String?

    @Option(
        name: .customLong("open-registration"),
        help: ArgumentHelp(
            "Let the registration routes accept requests without the secret from these networks "
                + "(e.g. 192.168.1.0/24,100.64.0.0/10): anyone there can register a device that then gets "
                + "your notifications.",
            valueName: "cidr[,cidr...]"))
    public var openRegistration: [String] = []

    @Option(
        name: .customLong("rate-limit"), parsing: .unconditional,
        help: ArgumentHelp("Registration requests per client per minute; 0 turns the limit off.", valueName: "n"))
    public var rateLimit = 30

    @OptionGroup(title: "Delivery") public var delivery: DeliveryOptions<RequestDeliveryDefaults>

    @OptionGroup public var shared: SharedOptions

    public init() {}

    public func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if rateLimit < 0 { throw ValidationError("--rate-limit must be 0 or more, not \(rateLimit)") }
    }
}
