import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeTransport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@main
struct SendPush: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-push",
        abstract: "Send a notification to registered devices over one HTTP/2 connection, and act on every APNs answer.",
        discussion: """
            Legacy form: send-push MESSAGE_ID PREVIEW [--sandbox] sends PREVIEW (cut to 100 characters) \
            to every registered device, titled with the config file's "title" (default: the last part of the topic), \
            with badge 1, the default sound and "message_id" beside "aps".
            Exit: 0 all delivered (410s pruned count as handled), 1 some failed, 64 usage, 65 bad payload, \
            66 key missing, 69 APNs unreachable, 75 only temporary failures left, 78 configuration.
            """
    )

    @OptionGroup var options: SharedOptions

    @Argument(help: ArgumentHelp("Legacy form: MESSAGE_ID PREVIEW.", valueName: "message-id preview"))
    var legacy: [String] = []

    // MARK: Notification
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Alert subtitle.") var subtitle: String?
    @Option(help: ArgumentHelp("Alert body; '-' reads it from standard input.", valueName: "text")) var body: String?
    @Option(help: "App icon badge (0 clears it).") var badge: Int?
    @Option(help: ArgumentHelp("Sound name, or 'none'. Default: 'default' for alerts.", valueName: "name")) var sound: String?
    @Option(help: "Notification category.") var category: String?
    @Option(name: .customLong("thread-id"), help: "Thread id for grouping.") var threadID: String?
    @Flag(name: .customLong("mutable-content"), help: "Let a notification service extension modify it.") var mutableContent = false
    @Flag(name: .customLong("content-available"), help: "Wake the app in the background.") var contentAvailable = false
    @Option(name: .customLong("interruption-level"), help: "passive, active, time-sensitive or critical.") var interruptionLevel: String?
    @Option(name: .customLong("relevance-score"), help: "0 to 1.") var relevanceScore: Double?
    @Option(name: .customLong("target-content-id"), help: "Window or content to bring forward.") var targetContentID: String?
    @Option(help: ArgumentHelp("JSON object merged beside 'aps' (repeatable).", valueName: "json")) var data: [String] = []
    @Option(name: .customLong("payload-file"), help: ArgumentHelp("A complete payload, or a simulator .apns file; '-' reads stdin.", valueName: "file"))
    var payloadFile: String?

    // MARK: Headers
    @Option(name: .customLong("push-type"), help: "alert, background, complication, controls, fileprovider, liveactivity, location, mdm, pushtotalk, voip, widgets.")
    var pushType = "alert"
    @Option(help: "10 (default), 5 (default for background) or 1.") var priority: Int?
    @Option(help: ArgumentHelp("UNIX time after which APNs gives up; 0 = try once.", valueName: "unix")) var expiration: Int?
    @Option(name: .customLong("collapse-id"), help: "Replace earlier notifications with this id (≤ 64 bytes).") var collapseID: String?
    @Option(name: .customLong("apns-id"), help: "UUID for the notification.") var apnsID: String?

    // MARK: Devices
    @Option(help: ArgumentHelp("A registered device id (repeatable).", valueName: "id")) var device: [String] = []
    @Option(help: ArgumentHelp("Devices of a group (repeatable).", valueName: "name")) var group: [String] = []
    @Option(help: ArgumentHelp("A device token, bypassing the registry (repeatable).", valueName: "hex")) var token: [String] = []
    @Flag(name: .customLong("require-device"), help: "Exit 66 when there is no device to send to (default: warn, exit 0).")
    var requireDevice = false

    // MARK: Behaviour
    @Option(help: "Resends of temporary failures (429, 5xx, lost connections).") var retries = 3
    @Option(help: ArgumentHelp("No run outlives this many seconds.", valueName: "seconds")) var timeout: Double = 30
    @Flag(help: "One JSON object per device per line.") var json = false
    @Flag(help: "Show whole device tokens.") var full = false
    @Flag(name: .customLong("dry-run"), help: "Print each request (token redacted) and send nothing.") var dryRun = false

    func validate() throws {
        if !legacy.isEmpty && legacy.count != 2 {
            throw ValidationError("the legacy form takes exactly MESSAGE_ID PREVIEW (got \(legacy.count) argument\(legacy.count == 1 ? "" : "s"))")
        }
        if !legacy.isEmpty && body != nil { throw ValidationError("--body cannot be combined with MESSAGE_ID PREVIEW") }
        if payloadFile != nil && (title != nil || subtitle != nil || body != nil || badge != nil || !legacy.isEmpty || !data.isEmpty) {
            throw ValidationError("--payload-file is a complete payload; it cannot be combined with --title, --subtitle, --body, --badge, --data or MESSAGE_ID PREVIEW")
        }
        if body == "-" && payloadFile == "-" { throw ValidationError("--body - and --payload-file - cannot both read standard input") }
        if retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if !(timeout > 0) { throw ValidationError("--timeout must be more than 0 seconds") }
        if !token.isEmpty && (!device.isEmpty || !group.isEmpty) {
            throw ValidationError("--token bypasses the registry; it cannot be combined with --device or --group")
        }
    }

    func run() throws {
        try ToolSupport.run(tool: "send-push") {
            let configuration = try ToolSupport.configuration(options.flags, tool: "send-push")
            let built = try specification(configuration).build(bundleID: configuration.topic?.value)
            if built.shortened { ToolSupport.warn("the body was shortened to fit APNs' payload limit", tool: "send-push") }

            let targets = try DeliveryTargets.select(configuration: configuration, deviceIDs: device, groups: group, tokens: token)
            guard !targets.isEmpty else {
                ToolSupport.warn("no devices to send to (registry: \(configuration.stateFile.value))", tool: "send-push")
                if requireDevice { throw ExitCode(ExitStatus.noInput.rawValue) }
                return
            }
            if dryRun {
                StandardStreams.writeOutput(DryRun.render(built.request, targets: targets, configuration: configuration, fullTokens: full))
                return
            }
            let report = try PushRun(configuration: configuration, policy: DeliveryPolicy(retries: retries, timeout: .milliseconds(Int(timeout * 1000))))
                .send(built.request, to: targets, makeTransport: { CurlHTTP2Client(caFile: $0, connectTimeout: $1) }) {
                    ToolSupport.warn($0, tool: "send-push")
                }
            StandardStreams.writeOutput(json ? report.jsonLines(fullTokens: full) : report.lines(fullTokens: full))
            StandardStreams.writeError("send-push: \(report.summary)\n")
            if report.exitStatus != .success { throw ExitCode(report.exitStatus.rawValue) }
        }
    }

    private func specification(_ configuration: Configuration) throws -> PushSpecification {
        var spec = PushSpecification()
        spec.content.title = title
        spec.content.subtitle = subtitle
        spec.content.body = body == "-" ? StandardInputText.read(trimmingTrailingNewlines: true) : body
        spec.content.badge = badge
        spec.content.category = category
        spec.content.threadID = threadID
        spec.content.mutableContent = mutableContent
        spec.content.contentAvailable = contentAvailable
        spec.content.interruptionLevel = interruptionLevel
        spec.content.relevanceScore = relevanceScore
        spec.content.targetContentID = targetContentID
        spec.sound = sound
        spec.data = data
        if let payloadFile { spec.payloadFile = try InputFile.read(payloadFile, named: "--payload-file \(payloadFile)") }
        spec.pushType = pushType
        spec.priority = priority
        spec.expiration = expiration
        spec.collapseID = collapseID
        spec.apnsID = apnsID
        if legacy.count == 2 { spec.legacy = (legacy[0], legacy[1]) }
        spec.configuredTitle = try configuration.file.string("title")
        return spec
    }
}
