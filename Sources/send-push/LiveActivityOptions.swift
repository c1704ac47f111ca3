import ArgumentParser
import PushKitFreeCore

/// `send-push --live-activity start|update|end` and the flags of a Live Activity push.
///
/// A start without `--token` goes to the push-to-start token of each selected device
/// (`register-apns add ... --push-to-start-token`); update and end need the activity's own update
/// token, which only the app knows, so they take `--token`. The event's rules (attributes only with
/// start, content state required for start and update, dismissal date only with end) are checked by
/// the core's `LiveActivity` when the payload is built (exit 65); this checks the command line (64).
struct LiveActivityOptions: ParsableArguments {
    @Option(
        name: .customLong("live-activity"),
        help: ArgumentHelp(
            "start (to each device's push-to-start token, or --token), update or end (to --token, the activity's update token).",
            valueName: "event"))
    var event: LiveActivity.Event?

    @Option(
        name: .customLong("content-state"),
        help: ArgumentHelp(
            "The activity's content state, a JSON object: required for start and update, the final state for end.",
            valueName: "json"))
    var contentState: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "UNIX seconds the content was made (default: now); ActivityKit ignores pushes older than the last one.",
            valueName: "unix"))
    var timestamp: Int?

    @Option(
        name: .customLong("stale-date"), parsing: .unconditional,
        help: ArgumentHelp("UNIX seconds after which the content shows as out of date.", valueName: "unix"))
    var staleDate: Int?

    @Option(
        name: .customLong("dismissal-date"), parsing: .unconditional,
        help: ArgumentHelp(
            "End only: UNIX seconds when the ended activity leaves the Lock Screen (a past time: at once).",
            valueName: "unix"))
    var dismissalDate: Int?

    @Option(
        name: .customLong("attributes-type"),
        help: ArgumentHelp("Start only: the name of the app's ActivityAttributes type.", valueName: "name"))
    var attributesType: String?

    @Option(help: ArgumentHelp("Start only: the activity's attributes, a JSON object.", valueName: "json"))
    var attributes: String?

    /// The flags of this group that were given, by name.
    private var givenFlags: [String] {
        [
            ("--content-state", contentState != nil), ("--timestamp", timestamp != nil),
            ("--stale-date", staleDate != nil),
            ("--dismissal-date", dismissalDate != nil), ("--attributes-type", attributesType != nil),
            ("--attributes", attributes != nil),
        ]
        .compactMap { $0.1 ? $0.0 : nil }
    }

    func validate() throws {
        guard event != nil else {
            if let flag = givenFlags.first {
                throw ValidationError(
                    "\(flag) belongs to a Live Activity push; add --live-activity start, update or end")
            }
            return
        }
        for (flag, value) in [
            ("--timestamp", timestamp), ("--stale-date", staleDate), ("--dismissal-date", dismissalDate),
        ] {
            if let value, value < 0 { throw ValidationError("\(flag) must be UNIX seconds (0 or more), not \(value)") }
        }
    }

    /// The checks that involve `send-push`'s other flags.
    func validate(in command: SendPush) throws {
        guard let event else { return }
        if let pushType = command.pushType, pushType != .liveactivity {
            throw ValidationError(
                "--live-activity sends push type liveactivity; it cannot be combined with --push-type \(pushType.rawValue)"
            )
        }
        if command.payloadFile != nil {
            throw ValidationError("--payload-file is a complete payload; it cannot be combined with --live-activity")
        }
        if !command.legacy.isEmpty || command.hook {
            throw ValidationError(
                "--live-activity cannot be combined with the legacy form MESSAGE_ID PREVIEW or --hook")
        }
        if event != .start, command.token.isEmpty {
            throw ValidationError(
                "--live-activity \(event) needs --token: the activity's update token, which the app gets from the activity's pushTokenUpdates (push-to-start tokens only start activities)"
            )
        }
    }

    /// The Live Activity part of the payload; `nil` without `--live-activity`.
    /// - Throws: `PayloadError` (65) when `--content-state` or `--attributes` is not a JSON object.
    func model() throws -> LiveActivity? {
        guard let event else { return nil }
        return LiveActivity(
            event: event, timestamp: timestamp,
            contentState: try contentState.map { text throws(PayloadError) in
                try LiveActivity.jsonObject(text, setting: .contentState)
            },
            staleDate: staleDate, dismissalDate: dismissalDate, attributesType: attributesType,
            attributes: try attributes.map { text throws(PayloadError) in
                try LiveActivity.jsonObject(text, setting: .attributes)
            }
        )
    }
}
