#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import NIOCore
import PushKitFreeCore
import PushKitFreeRegistry

/// `register-apns serve`: the application `buildApplication` assembles, run until SIGTERM or SIGINT,
/// then stopped gracefully: it stops accepting, lets requests in flight finish (their registry writes
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

    /// Runs the server (`buildApplication`); returns after a graceful shutdown.
    /// - Throws: `ConfigurationError` for unusable TLS files, or the error binding the address.
    package static func run(_ settings: EndpointSettings) async throws {
        Self.unblockTerminationSignals()
        let app = try buildApplication(settings)
        try await app.runService() // graceful on SIGTERM and SIGINT
        StandardStreams.writeError("\(tool): stopped\n")
    }

    /// Says on standard error what the settings leave unusable or open: the provider key's
    /// permissions, why the notification routes will answer 503, which networks register without
    /// the secret, and a secret too short to put its hash in notifications.
    static func warnAtStart(_ parts: EndpointParts) {
        let settings = parts.settings
        if let warning = ProviderCredentials.keyPermissionWarning(settings.configuration) {
            StandardStreams.writeError("\(tool): warning: \(warning)\n")
        }
        if let problem = parts.sender.delivery.problem() {
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
