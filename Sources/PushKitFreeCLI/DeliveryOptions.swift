import ArgumentParser
import PushKitFreeCore

/// What a tool's delivery options default to.
package protocol DeliveryDefaults {
    /// Seconds a whole send may take.
    static var timeout: Double { get }
    /// What `--timeout` limits, for `--help`.
    static var timeoutHelp: String { get }
}

/// `send-push`: one run, which may fan out to many devices.
package enum RunDeliveryDefaults: DeliveryDefaults {
    /// 30 seconds: a run may reach many devices, each with its retries.
    package static let timeout: Double = 30
    /// The whole run.
    package static let timeoutHelp = "No run outlives this many seconds."
}

/// `register-apns serve`: each send answers an HTTP request that waits for it.
package enum RequestDeliveryDefaults: DeliveryDefaults {
    /// 10 seconds: an HTTP client waits for the answer.
    package static let timeout: Double = 10
    /// Each send.
    package static let timeoutHelp = "No send outlives this many seconds."
}

/// `--retries` and `--timeout`, declared once for every tool that sends and checked by the core's
/// `DeliveryPolicy`.
package struct DeliveryOptions<Defaults: DeliveryDefaults>: ParsableArguments {
    /// `--retries`: resends of a temporary failure (429, 5xx, a lost connection); 0 or more.
    @Option(parsing: .unconditional, help: "Resends of temporary failures (429, 5xx, lost connections).")
    package var retries = 3

    /// `--timeout`: seconds a run or send may take, from its first request to its last answer; more than 0.
    @Option(parsing: .unconditional, help: ArgumentHelp(Defaults.timeoutHelp, valueName: "seconds"))
    package var timeout: Double = Defaults.timeout

    /// Every option at its default; argument parser sets the ones given.
    package init() {}

    /// Rejects what `policy()` rejects: negative `--retries`, a `--timeout` not above 0.
    package func validate() throws {
        _ = try policy()
    }

    /// The delivery policy these options make.
    /// - Throws: `ValidationError` naming the flag at fault.
    package func policy() throws(ValidationError) -> DeliveryPolicy {
        do {
            return try DeliveryPolicy(retries: retries, timeoutSeconds: timeout)
        } catch {
            throw ValidationError(error.worded(naming: \.flag))
        }
    }
}
