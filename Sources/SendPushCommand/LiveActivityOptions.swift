import ArgumentParser
import PushKitFreeCore

/// `send-push --live-activity start|update|end` and the flags of a Live Activity push.
///
/// A start without `--token` goes to the push-to-start token of each selected device
/// (`register-apns add ... --push-to-start-token`); update and end need the activity's own update
/// token, which only the app knows, so they take `--token`, or `--channel` to broadcast them to
/// every activity subscribed to a channel in one request. A start can ask APNs for the new
/// activity's update token (`--input-push-token`) or subscribe it to a channel
/// (`--input-push-channel`). The event's rules (attributes only with
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

    @Option(
        help: ArgumentHelp(
            "Update or end only: broadcast to this channel (a name from register-apns channel create, or an id) in one request, instead of to devices.",
            valueName: "name|id"))
    var channel: String?

    @Flag(
        name: .customLong("input-push-token"),
        help:
            "Start only: ask APNs to issue the new activity's update token (iOS 18; the app gets it in pushTokenUpdates)."
    )
    var inputPushToken = false

    @Option(
        name: .customLong("input-push-channel"),
        help: ArgumentHelp(
            "Start only: subscribe the new activity to this broadcast channel (a channel name or id; iOS 18).",
            valueName: "name|id"))
    var inputPushChannel: String?

    /// The flags of this group that were given, by name.
    private var givenFlags: [String] {
        [
            ("--content-state", contentState != nil), ("--timestamp", timestamp != nil),
            ("--stale-date", staleDate != nil),
            ("--dismissal-date", dismissalDate != nil), ("--attributes-type", attributesType != nil),
            ("--attributes", attributes != nil), ("--channel", channel != nil),
            ("--input-push-token", inputPushToken), ("--input-push-channel", inputPushChannel != nil),
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
        if let channel {
            if event == .start {
                throw ValidationError(
                    "--channel broadcasts updates and ends; a broadcast cannot start a Live Activity (a start goes to each device's push-to-start token): send the start to devices with --input-push-channel \(channel) to subscribe them"
                )
            }
            if channel.isEmpty { throw ValidationError("--channel needs a channel name or id") }
        }
        if event != .start {
            for (flag, given) in [
                ("--input-push-token", inputPushToken), ("--input-push-channel", inputPushChannel != nil),
            ]
            where given {
                throw ValidationError(
                    "\(flag) is only for --live-activity start: it says how the new activity gets its updates")
            }
        }
        if inputPushToken, inputPushChannel != nil {
            throw ValidationError(
                "--input-push-token and --input-push-channel exclude each other: an activity is updated through its own token or through a channel"
            )
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
        if !command.legacy.isEmpty || command.backgroundOptions.hook {
            throw ValidationError(
                "--live-activity cannot be combined with the reply form MESSAGE_ID PREVIEW or --hook")
        }
        if channel != nil {
            let conflicting = [
                ("--token", !command.audienceOptions.token.isEmpty),
                ("--device", !command.audienceOptions.device.isEmpty),
                ("--group", !command.audienceOptions.group.isEmpty), ("--detach", command.backgroundOptions.detach),
                ("--collapse-id", command.collapseID != nil), ("--apns-id", command.apnsID != nil),
            ]
            if let flag = conflicting.first(where: \.1)?.0 {
                throw ValidationError(
                    "--channel sends one broadcast request to the channel's subscribers; it cannot be combined with \(flag)"
                )
            }
            return
        }
        if event != .start, command.audienceOptions.token.isEmpty {
            throw ValidationError(
                "--live-activity \(event) needs --token: the activity's update token, which the app gets from the activity's pushTokenUpdates (push-to-start tokens only start activities), or --channel for activities subscribed to a broadcast channel"
            )
        }
    }

    /// The Live Activity part of the payload; `nil` without `--live-activity`.
    /// - Throws: `PayloadError` (65) when `--content-state` or `--attributes` is not a JSON object.
    func model() throws -> LiveActivity? {
        guard let event else { return nil }
        var activity = LiveActivity(
            event: event, timestamp: timestamp,
            contentState: try contentState.map { text throws(PayloadError) in
                try LiveActivity.jsonObject(text, setting: .contentState)
            },
            staleDate: staleDate, dismissalDate: dismissalDate, attributesType: attributesType,
            attributes: try attributes.map { text throws(PayloadError) in
                try LiveActivity.jsonObject(text, setting: .attributes)
            }
        )
        activity.inputPushToken = inputPushToken
        return activity
    }
}
