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
struct RegisterAPNsServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-apns serve",
        abstract: "Serve the HTTP endpoint your app registers with, and the webhooks that send.",
        discussion: """
            Routes (docs/openapi.yaml): POST /register-apns, POST /api/v1/devices/register, \
            DELETE /api/v1/devices/{token}, GET /api/v1/devices, POST /hooks/ios-device, \
            POST /registerSubscription, POST /api/v1/notifications/send[/{token}], POST /hooks/ios-notify, \
            POST /triggerReplyFinished, POST /mcp (the agent tools over MCP), POST /v1/questions, \
            GET and DELETE /v1/questions/{id}, POST /v1/questions/{id}/answer (the phone's answer, with \
            the question's answer token instead of the secret), GET /health, GET /health/live, \
            GET /metrics; HEAD wherever GET. \
            Every route but /health and /health/live needs the secret (/metrics too), as \
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
            """,
        version: PushKitFree.version
    )

    @OptionGroup var serve: ServeOptions

    func run() async throws {
        let settings: EndpointSettings
        do {
            var flags = serve.shared.flags
            flags.publicURL = serve.publicURL
            let configuration = try ToolSupport.configuration(flags, tool: EndpointServer.tool)
            let policy = try NotificationPolicy(configuration: configuration)
            settings = try EndpointSettings(
                configuration: configuration, listen: try ListenAddress(parsing: serve.listen),
                secretFile: serve.secretFile,
                noAuth: serve.noAuth, rateLimit: serve.rateLimit,
                tls: serve.tlsCertificate.flatMap { certificate in serve.tlsKey.map { (certificate, $0) } },
                deliveryPolicy: try serve.delivery.policy(),
                notificationPolicy: policy,
                openRegistration: try serve.openRegistration.flatMap { try IPNetwork.list(parsing: $0) },
                headerTimeout: .milliseconds(Int64(serve.headerTimeout * 1000)),
                idleTimeout: .milliseconds(Int64(serve.idleTimeout * 1000)),
                maxConnections: serve.maxConnections, maxConnectionsPerClient: serve.maxConnectionsPerClient
            )
        } catch {
            throw ToolSupport.exitCode(for: error, tool: EndpointServer.tool)
        }
        do {
            try await EndpointServer.run(settings)
        } catch let error as PushKitError {
            throw ToolSupport.exitCode(for: error, tool: EndpointServer.tool)
        } catch {
            StandardStreams.writeError(
                "\(EndpointServer.tool): cannot serve \(settings.listen): \(EndpointServer.describe(error))\n")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
    }
}

/// `register-apns-serve`'s entry point (what `register-apns serve` runs): the server program
/// (Sources/pushkit-free-server) runs it when called by that name.
package enum RegisterAPNsServeTool {
    package static func main() async { await RegisterAPNsServe.main() }
}
