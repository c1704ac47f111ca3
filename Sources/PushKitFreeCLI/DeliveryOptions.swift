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
    package static let timeout: Double = 30
    package static let timeoutHelp = "No run outlives this many seconds."
}

/// `register-apns serve`: each send answers an HTTP request that waits for it.
package enum RequestDeliveryDefaults: DeliveryDefaults {
    package static let timeout: Double = 10
    package static let timeoutHelp = "No send outlives this many seconds."
}

/// `--retries` and `--timeout`, declared once for every tool that sends and checked by the core's
/// `DeliveryPolicy`.
package struct DeliveryOptions<Defaults: DeliveryDefaults>: ParsableArguments {
    @Option(parsing: .unconditional, help: "Resends of temporary failures (429, 5xx, lost connections).")
    package var retries = 3

    @Option(parsing: .unconditional, help: ArgumentHelp(Defaults.timeoutHelp, valueName: "seconds"))
    package var timeout: Double = Defaults.timeout

    package init() {}

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
