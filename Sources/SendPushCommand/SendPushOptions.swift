import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore

// send-push's option groups, one per section of its --help (the Live Activity and Delivery groups
// are in LiveActivityOptions.swift and PushKitFreeCLI).

/// Which devices a send goes to, and when a scheduled one is due.
struct AudienceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A registered device id (repeatable).", valueName: "id")) var device: [String] = []
    @Option(help: ArgumentHelp("Devices of a group (repeatable).", valueName: "name")) var group: [String] = []
    @Option(help: ArgumentHelp("A device token, bypassing the registry (repeatable).", valueName: "hex")) var token:
        [String] = []
    @Flag(
        name: .customLong("require-device"), help: "Exit 66 when there is no device to send to (default: warn, exit 0)."
    )
    var requireDevice = false
    @Option(
        help: ArgumentHelp(
            "Only the devices whose daily briefing time has come in their own time zone and that have not had today's; silent when none is due (run it from cron every minute).",
            valueName: "schedule"))
    var due: DueSchedule?
    @Option(
        help: ArgumentHelp(
            "Judge --due and quiet hours as if it were this time (ISO 8601 with a zone, or UNIX seconds); for tests and --dry-run what-ifs.",
            valueName: "time"))
    var now: InstantArgument?
}

/// What the notification policy may change: urgency, quiet hours, the frequency cap.
struct PolicyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "low, normal, high or critical: interruption level passive, active, time-sensitive or critical, and the config's urgency_categories category.",
            valueName: "level"))
    var urgency: Urgency?
    @Option(
        name: .customLong("quiet-policy"),
        help: ArgumentHelp(
            "During the config's quiet_hours: passive (default: no sound), skip, or ignore.", valueName: "policy"))
    var quietPolicy: QuietPolicy?
    @Option(
        name: .customLong("min-interval"), parsing: .unconditional,
        help: ArgumentHelp(
            "At most one send per collapse id (else audience) this often; 0 turns the config's min_interval_seconds off.",
            valueName: "seconds"))
    var minInterval: Int?
}

/// Delivering from a background process.
struct BackgroundOptions: ParsableArguments {
    @Flag(
        help:
            "Check everything, then deliver from a background process and exit 0; outcomes go to push.log in the state directory."
    )
    var detach = false
    @Flag(
        help:
            "For hooks: --detach, the reply form with the body read from standard input, and exit 0 unless this command line is wrong."
    )
    var hook = false
}

/// What is printed.
struct OutputOptions: ParsableArguments {
    @Flag(help: "One JSON object per device per line.") var json = false
    @Flag(help: "Show whole device tokens.") var full = false
    @Flag(name: .customLong("dry-run"), help: "Print each request (token redacted) and send nothing.") var dryRun =
        false
}

/// Content only the phone can read: the payload sealed with each device's content key.
struct EncryptionOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Seal the payload with each device's content key (AES-256-GCM); in clear only a placeholder alert. A device without a key is refused, never sent in clear. Default: the config's encrypt (false)."
        ))
    var encrypt: Bool?
    @Option(
        name: .customLong("placeholder-title"), parsing: .unconditional,
        help: ArgumentHelp(
            "The clear alert's title of an encrypted send; '' for none. Default: the config's placeholder_title, else \"New message\".",
            valueName: "text"))
    var placeholderTitle: String?
    @Option(
        name: .customLong("placeholder-body"), parsing: .unconditional,
        help: ArgumentHelp(
            "The clear alert's body of an encrypted send. Default: the config's placeholder_body, else none.",
            valueName: "text"))
    var placeholderBody: String?
}
