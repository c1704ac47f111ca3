import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeRegistry
import PushKitFreeTransport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct SendPush: ParsableCommand {
    /// Runs as `main(_:)` does, with argument parsing's messages escaped (see `mainEscapingMessages`).
    static func main() { mainEscapingMessages() }

    static let configuration = CommandConfiguration(
        commandName: "send-push",
        abstract: "Send a notification to registered devices over one HTTP/2 connection, and act on every APNs answer.",
        discussion: """
            Reply form: send-push MESSAGE_ID PREVIEW [--sandbox] sends PREVIEW (cut to 100 characters) \
            to every registered device, titled with the config file's "title" (default: the last part of the topic), \
            with badge 1, the default sound and "message_id" beside "aps".
            --detach checks everything it can, then delivers from a background process and exits 0; \
            the outcome of each device goes to push.log in the state directory. --hook is --detach for the \
            hook that runs after an assistant stores a reply: send-push --hook [MESSAGE_ID] < reply. It \
            sends the reply form with the reply as PREVIEW and exits 0 unless its own command line is \
            wrong; any other problem goes to standard error and push.log.
            --encrypt seals the payload with each device's content key (register-apns make-content-key) and \
            sends only a placeholder alert in clear; a device without a key is refused, never sent in clear. \
            It is for alerts: --content-available (a silent wake) with encryption is refused, as the \
            placeholder would show.
            Exit: 0 all delivered (410s pruned and policy skips count as handled), 1 some failed, 64 usage, \
            65 bad payload (or every device refused), 66 key missing, 69 APNs unreachable, 71 no background process, 75 only \
            temporary failures left, 78 configuration.
            """,
        version: PushKitFree.version
    )

    @OptionGroup var options: SharedOptions

    /// MESSAGE_ID and PREVIEW, read the way the Sven design's Python script reads them with argparse:
    /// an argument that starts with `-` is still one of them when it contains a space or is a negative
    /// number (`"- item one"`, `"-5 degrees"`, `"--sandbox is on"`). Argument parser collects every
    /// argument it does not recognize here; `validate()` refuses the ones that look like options.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Reply form: MESSAGE_ID PREVIEW.", valueName: "message-id preview"))
    var legacy: [String] = []

    // MARK: Notification
    // Options whose value may start with '-' (text such as "- item", a negative number to refuse
    // with a message that says why) take the next argument whatever it looks like.
    @Option(parsing: .unconditional, help: "Alert title.") var title: String?
    @Option(parsing: .unconditional, help: "Alert subtitle.") var subtitle: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Alert body; '-' reads it from standard input (at most 1 MiB).", valueName: "text"))
    var body: String?
    @Option(parsing: .unconditional, help: "App icon badge (0 clears it).") var badge: Int?
    @Option(help: ArgumentHelp("Sound name, or 'none'. Default: 'default' for alerts.", valueName: "name")) var sound:
        String?
    @Option(help: "Notification category.") var category: String?
    @Option(name: .customLong("thread-id"), help: "Thread id for grouping.") var threadID: String?
    @Flag(name: .customLong("mutable-content"), help: "Let a notification service extension modify it.")
    var mutableContent = false
    @Flag(name: .customLong("content-available"), help: "Wake the app in the background.") var contentAvailable = false
    @Option(name: .customLong("interruption-level"), help: "How much it may interrupt.") var interruptionLevel:
        InterruptionLevel?
    @Option(name: .customLong("relevance-score"), parsing: .unconditional, help: "0 to 1.") var relevanceScore: Double?
    @Option(name: .customLong("target-content-id"), help: "Window or content to bring forward.") var targetContentID:
        String?
    @Option(
        help: ArgumentHelp(
            "An https URL of a picture the app's notification service extension attaches (sent as image_url, with mutable-content).",
            valueName: "url"))
    var image: String?
    @Flag(
        help:
            "A critical alert: sounds even when the phone is muted or in Focus (interruption level critical); needs \"critical_alerts\": true in the config."
    )
    var critical = false
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("A critical alert's volume, from 0 to 1. Default: 1.", valueName: "level"))
    var volume: Double?
    @Option(
        help: ArgumentHelp(
            "Take back the delivered notifications sent with this collapse id: a background push the app handles (see the guide).",
            valueName: "collapse-id"))
    var withdraw: String?
    @Option(
        help: ArgumentHelp(
            "JSON object merged beside 'aps', or under the profile's data key (repeatable).", valueName: "json"))
    var data: [String] =
        []
    @Option(
        name: .customLong("payload-file"),
        help: ArgumentHelp(
            "A complete payload, or a simulator .apns file (at most 64 KiB); '-' reads stdin.", valueName: "file"))
    var payloadFile: String?

    // MARK: Headers
    @Option(
        name: .customLong("push-type"),
        help: ArgumentHelp("Default: alert (liveactivity with --live-activity).", valueName: "type"))
    var pushType: APNsPushType?
    @Option(parsing: .unconditional, help: "Default: 10 (5 for background).") var priority: APNsPriority?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("UNIX time after which APNs gives up; 0 = try once.", valueName: "unix"))
    var expiration: Int?
    @Option(name: .customLong("collapse-id"), help: "Replace earlier notifications with this id (≤ 64 bytes).")
    var collapseID: String?
    @Option(name: .customLong("apns-id"), help: "UUID for the notification.") var apnsID: String?

    @OptionGroup(title: "Devices") var audienceOptions: AudienceOptions

    @Option(
        help: ArgumentHelp(
            "A built-in payload profile (openclaw, openclaw-gateway, ember-briefing), or none: in place of the config's profile.",
            valueName: "name"))
    var profile: String?

    @OptionGroup(title: "Encryption") var encryption: EncryptionOptions

    @OptionGroup(title: "Live Activity") var liveActivity: LiveActivityOptions

    @OptionGroup(title: "Policy") var policyOptions: PolicyOptions
    @OptionGroup(title: "Background") var backgroundOptions: BackgroundOptions

    // MARK: Behaviour
    @OptionGroup(title: "Delivery") var delivery: DeliveryOptions<RunDeliveryDefaults>
    @OptionGroup(title: "Output") var output: OutputOptions

    mutating func validate() throws {
        if let profile, profile != "none", PayloadProfile.named[profile] == nil {
            throw ValidationError(
                "--profile must be none or one of \(PayloadProfile.named.keys.sorted().joined(separator: ", ")), "
                    + "not \"\(profile)\"")
        }
        // `send-push help ...` asks for help; no word of it may become a push.
        if legacy.first == "help" { throw CleanExit.helpRequest(self) }
        // After `--` every argument is positional (argument parser hands the `--` on here too).
        let terminator = legacy.firstIndex(of: "--") ?? legacy.endIndex
        if let option = legacy[..<terminator].first(where: ArgparseCompatibility.looksLikeOption) {
            let name = String(option.prefix { $0 != "=" })
            if let meant = Suggestion.closest(to: name, among: Suggestion.longOptions(of: Self.self)) {
                throw ValidationError("unknown option '\(option)'; did you mean '\(meant)'?")
            }
            throw ValidationError(
                "unknown option '\(option)' (a MESSAGE_ID or PREVIEW that starts with '-' needs a space in it, as in \"- item\", or to be a number)"
            )
        }
        if terminator < legacy.endIndex { legacy.remove(at: terminator) }
        if let badge, badge < 0 {
            throw ValidationError("--badge must be 0 or more (0 clears the badge), not \(badge)")
        }
        if let expiration, expiration < 0 {
            throw ValidationError("--expiration must be a UNIX time in seconds, or 0 to try once, not \(expiration)")
        }
        if backgroundOptions.hook {
            if legacy.count > 2 {
                throw ValidationError("--hook takes at most MESSAGE_ID and PREVIEW (got \(legacy.count) arguments)")
            }
            if payloadFile != nil {
                throw ValidationError("--hook sends the reply as an alert; it cannot be combined with --payload-file")
            }
            if legacy.count == 2 && body != nil { throw ValidationError("--body cannot be combined with PREVIEW") }
        } else if !legacy.isEmpty && legacy.count != 2 {
            throw ValidationError(
                "the reply form takes exactly MESSAGE_ID PREVIEW (got \(legacy.count) argument\(legacy.count == 1 ? "" : "s"))"
            )
        }
        if !legacy.isEmpty && body != nil && !backgroundOptions.hook {
            throw ValidationError("--body cannot be combined with MESSAGE_ID PREVIEW")
        }
        if payloadFile != nil
            && (title != nil || subtitle != nil || body != nil || badge != nil || !legacy.isEmpty || !data.isEmpty)
        {
            throw ValidationError(
                "--payload-file is a complete payload; it cannot be combined with --title, --subtitle, --body, --badge, --data or MESSAGE_ID PREVIEW"
            )
        }
        if body == "-" && payloadFile == "-" {
            throw ValidationError("--body - and --payload-file - cannot both read standard input")
        }
        if audienceOptions.due != nil
            && (!audienceOptions.token.isEmpty || liveActivity.event != nil || backgroundOptions.hook)
        {
            throw ValidationError(
                "--due selects registered devices by their schedule; it cannot be combined with --token, --live-activity or --hook"
            )
        }
        if encryption.encrypt == true && !audienceOptions.token.isEmpty {
            throw ValidationError(
                "--encrypt seals the payload with each registered device's content key; it cannot be combined with --token"
            )
        }
        if encryption.encrypt == true && contentAvailable {
            throw ValidationError(
                "--encrypt and --content-available cannot go together: an encrypted push reaches the phone as a visible placeholder alert, so a silent push would show; send it with --no-encrypt"
            )
        }
        if encryption.encrypt == false && (encryption.placeholderTitle != nil || encryption.placeholderBody != nil) {
            throw ValidationError(
                "--placeholder-title and --placeholder-body are for encrypted sends, not --no-encrypt")
        }
        if !audienceOptions.token.isEmpty && (!audienceOptions.device.isEmpty || !audienceOptions.group.isEmpty) {
            throw ValidationError("--token bypasses the registry; it cannot be combined with --device or --group")
        }
        if policyOptions.urgency != nil {
            if interruptionLevel != nil {
                throw ValidationError(
                    "--urgency sets the interruption level; it cannot be combined with --interruption-level")
            }
        }
        if critical, let level = policyOptions.urgency?.interruptionLevel ?? interruptionLevel, level != .critical {
            throw ValidationError(
                "--critical sends the interruption level critical; it cannot be combined with \(policyOptions.urgency != nil ? "--urgency" : "--interruption-level") \(policyOptions.urgency?.rawValue ?? level.rawValue)"
            )
        }
        if withdraw != nil {
            let clashing: [(Bool, String)] = [
                (backgroundOptions.hook, "--hook"), (!legacy.isEmpty, "MESSAGE_ID PREVIEW"),
                (policyOptions.urgency != nil, "--urgency"), (critical, "--critical"),
                (profile != nil && profile != "none", "--profile"),
            ]
            if let (_, name) = clashing.first(where: \.0) {
                throw ValidationError(
                    "--withdraw sends a background push that carries only the id; it cannot be combined with \(name)")
            }
        }
        if let minInterval = policyOptions.minInterval, minInterval < 0 {
            throw ValidationError("--min-interval must be 0 or more seconds, not \(minInterval)")
        }
        try liveActivity.validate(in: self)
        if collapseID == NotificationPolicy.automaticCollapseID, threadID == nil, audienceOptions.group.isEmpty,
            payloadFile != nil
        {
            throw ValidationError(
                "--collapse-id auto derives the id from --thread-id or --group; give one of them with --payload-file")
        }
    }

    func run() throws {
        if backgroundOptions.hook { return runHook() }
        try ToolSupport.run(tool: Self.tool) {
            var configuration: Configuration?
            try send(mode: backgroundOptions.detach ? .detach : .foreground, configuration: &configuration)
        }
    }

    static let tool = "send-push"

    /// The hook: whatever goes wrong past argument parsing is reported on standard error and in
    /// push.log, and the caller still gets 0.
    private func runHook() {
        var configuration: Configuration?
        do {
            try send(mode: .hook, configuration: &configuration)
        } catch {
            let status: Int32
            let message: String
            if let exit = error as? ExitCode {
                status = exit.rawValue
                message = "no devices to send to"
            } else if let error = error as? PushKitError {
                status = error.exitStatus.rawValue
                message = ToolSupport.message(for: error)
            } else {
                status = 70
                message = "unexpected error: \(error)"
            }
            guard status != 0 else { return }
            StandardStreams.writeError("\(Self.tool): \(message)\n")
            let directory =
                configuration?.stateDirectory.value
                ?? Configuration.stateDirectory(environment: ToolSupport.environment)
            let record = PushLog.errorRecord(message, exitStatus: status, at: Date(), messageID: legacy.first)
            do {
                try PushLog(stateDirectory: directory).append([record])
            } catch {
                StandardStreams.writeError("\(Self.tool): cannot write the push log: \(error)\n")
            }
        }
    }

    /// Resolves the configuration, turns the options into the run's values and runs it (`SendRun`).
    /// - Parameter resolved: set as soon as the configuration is resolved, for the hook's error record.
    private func send(mode: SendRun.Mode, configuration resolved: inout Configuration?) throws {
        let configuration = try ToolSupport.configuration(options.flags, tool: Self.tool)
        resolved = configuration
        let notificationPolicy = try NotificationPolicy(
            configuration: configuration, quietPolicy: policyOptions.quietPolicy,
            minimumInterval: policyOptions.minInterval)
        let deliveryPolicy = try delivery.policy()
        let audience = PushSender.Audience(
            deviceIDs: audienceOptions.device, groups: audienceOptions.group, tokens: audienceOptions.token,
            strictGroups: true, pushToStart: liveActivity.event == .start, due: audienceOptions.due)
        let specification = try specification(configuration, deliveryPolicy: deliveryPolicy)
        try SendRun(
            configuration: configuration, specification: specification, notificationPolicy: notificationPolicy,
            deliveryPolicy: deliveryPolicy, urgency: policyOptions.urgency, audience: audience,
            preparedAt: audienceOptions.now?.date ?? Date(), channel: liveActivity.channel,
            messageID: legacy.first, isReplyForm: !legacy.isEmpty, mode: mode, output: output,
            isScheduled: audienceOptions.due != nil, requiresDevice: audienceOptions.requireDevice
        ).run()
    }
}

/// `send-push`'s entry point: the multi-call program (Sources/pushkit-free) runs it when called by that
/// name, with `CommandLine.arguments` as the tool would see them.
package enum SendPushTool {
    package static func main() { SendPush.main() }
}
