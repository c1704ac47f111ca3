import Hummingbird
import ServiceLifecycle

/// Background work of the server as a service of its application: it runs until the application's
/// graceful shutdown (SIGTERM, SIGINT) reaches it, then stops the work with `stop`, which waits for
/// what is in progress.
///
/// The application shuts its services down in the reverse order of their start, the HTTP server
/// first: by the time `stop` runs, no request is left that could hand this work anything.
struct StopOnShutdown: Service, CustomStringConvertible {
    /// What it stops, for the service group's log.
    let description: String
    let stop: @Sendable () async -> Void

    func run() async throws {
        // Cancelled instead (the server failed to start): stop all the same.
        try? await gracefulShutdown()
        await stop()
    }
}
