import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `register-apns serve`: `register-apns` runs this program for its `serve` subcommand, so that it
/// does not itself link Hummingbird and NIO (and starts as fast as before).
@main
struct RegisterAPNsServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-apns serve",
        abstract: "Serve the HTTP endpoint your app registers with, and the webhooks that send.",
        discussion: """
            Routes (docs/openapi.yaml): POST /register-apns, POST /api/v1/devices/register, \
            DELETE /api/v1/devices/{token}, GET /api/v1/devices, POST /hooks/ios-device, \
            POST /registerSubscription, POST /api/v1/notifications/send[/{token}], POST /hooks/ios-notify, \
            POST /triggerReplyFinished, GET /health, GET /health/live, GET /metrics; HEAD wherever GET. \
            Every route but /health, /health/live (and /metrics on loopback) needs the secret, as \
            Authorization: Bearer <secret> or X-OpenClaw-Auth: <secret>. The secret file must be \
            readable by its owner only. --no-auth is allowed on loopback only. \
            --open-registration lets devices on the named networks register without the secret \
            (never list, remove or send). /health answers 503 when the state file or the provider \
            key cannot be used; /health/live only says the process answers. \
            A registration is answered once it is on disk; concurrent ones share one locked write \
            with register-apns and send-push. One access-log line per request on standard error. \
            SIGTERM or SIGINT: stop accepting, finish the requests in flight, exit 0.
            Exit status: 0 stopped by a signal, 64 usage, 69 address in use or unavailable, \
            78 configuration (secret file, TLS files).
            """
    )

    @Option(help: ArgumentHelp("Address and port to listen on; port 0 picks a free one.", valueName: "host:port"))
    var listen = "127.0.0.1:8100"

    @Option(name: .customLong("secret-file"), help: ArgumentHelp("File holding the shared secret (mode 600).", valueName: "file"))
    var secretFile: String?

    @Flag(name: .customLong("no-auth"), help: "Serve without a secret (loopback addresses only).")
    var noAuth = false

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain.", valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(name: .customLong("open-registration"), help: ArgumentHelp(
        "Let the registration routes accept requests without the secret from these networks "
            + "(e.g. 192.168.1.0/24,100.64.0.0/10): anyone there can register a device that then gets "
            + "your notifications.",
        valueName: "cidr[,cidr...]"))
    var openRegistration: [String] = []

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp("Registration requests per client per minute; 0 turns the limit off.", valueName: "n"))
    var rateLimit = 30

    @Option(help: "Resends of temporary failures for each send.") var retries = 3
    @Option(help: ArgumentHelp("No send outlives this many seconds.", valueName: "seconds")) var timeout: Double = 10

    @OptionGroup var options: SharedOptions

    func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if rateLimit < 0 { throw ValidationError("--rate-limit must be 0 or more") }
        if retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if !(timeout > 0) { throw ValidationError("--timeout must be more than 0 seconds") }
    }

    func run() async throws {
        let settings: EndpointSettings
        do {
            let configuration = try ToolSupport.configuration(options.flags, tool: EndpointServer.tool)
            let policy = try NotificationPolicy(file: configuration.file, quietPolicy: nil, minimumInterval: nil,
                                                makeZone: { name throws(ConfigurationError) in try SystemTimeZone(identifier: name) })
            settings = try EndpointSettings(
                configuration: configuration, listen: try ListenAddress(parsing: listen), secretFile: secretFile, noAuth: noAuth,
                rateLimit: rateLimit, tls: tlsCertificate.flatMap { certificate in tlsKey.map { (certificate, $0) } },
                deliveryPolicy: DeliveryPolicy(retries: retries, timeout: .milliseconds(Int(timeout * 1000))),
                notificationPolicy: policy,
                openRegistration: try openRegistration.flatMap { try IPNetwork.list(parsing: $0) }
            )
        } catch {
            throw ToolSupport.exitCode(for: error, tool: EndpointServer.tool)
        }
        do {
            try await EndpointServer.run(settings)
        } catch let error as PushKitError {
            throw ToolSupport.exitCode(for: error, tool: EndpointServer.tool)
        } catch {
            StandardStreams.writeError("\(EndpointServer.tool): cannot serve \(settings.listen): \(error)\n")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
    }
}
