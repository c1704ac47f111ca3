import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeTransport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RegisterAPNs {
    /// `register-apns channel ...`: broadcast channels live here, beside the devices and groups a
    /// push is addressed to, because register-apns owns the names a push goes to; send-push only
    /// sends (and its legacy `MESSAGE_ID PREVIEW` form would read `send-push channel list` as a push).
    struct Channel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "channel",
            abstract: "Create, list, show and delete broadcast channels for Live Activities (iOS 18), by name.",
            discussion: """
                A channel carries one Live Activity update or end to every device subscribed to it \
                (send-push --live-activity update --channel NAME). Channels are made at Apple's channel \
                management API (api-manage-broadcast.push.apple.com:2196, the sandbox's on 2195; set \
                APNS_PRODUCTION_MANAGE_URL, APNS_SANDBOX_MANAGE_URL, production_manage_url, \
                sandbox_manage_url or --manage-url to use another) in the chosen environment, and \
                remembered by name in channels.json in the state directory. Apple allows 10,000 \
                channels per app and environment.
                Exit: 0 done, 64 usage, 65 unknown or taken name or APNs refused it, 66 key missing, \
                69 APNs unreachable, 73/74 channels file, 75 temporary failure, 78 configuration or \
                authentication.
                """,
            subcommands: [Create.self, List.self, Show.self, Delete.self]
        )
    }
}

/// The settings a channel command needs: provider identity, environment, where the management API
/// is and how to reach it, and how hard to try.
struct ChannelOptions: ConfigurationOptionGroup {
    @OptionGroup var file: ConfigFileOption
    @OptionGroup var provider: ProviderOptions
    @OptionGroup var environment: EnvironmentOptions

    @Option(
        name: .customLong("manage-url"),
        help: ArgumentHelp("Base URL replacing the chosen environment's channel management host.", valueName: "url"))
    var manageURL: String?

    @Option(help: ArgumentHelp("Extra CA bundle (PEM) to trust, e.g. the emulator's.", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Proxy for APNs (as send-push --proxy).", valueName: "url"))
    var proxy: String?

    @OptionGroup(title: "Delivery") var delivery: DeliveryOptions<RequestDeliveryDefaults>

    func apply(to flags: inout ConfigurationFlags) {
        for group in [file, provider, environment] as [any ConfigurationOptionGroup] { group.apply(to: &flags) }
        flags.manageURL = manageURL
        flags.caFile = cacert
        flags.proxy = proxy
    }

    /// The configured channels, with libcurl loaded only when a request goes out.
    func channels() throws -> BroadcastChannels {
        let configuration = try ToolSupport.configuration(ConfigurationFlags(self), tool: RegisterAPNs.tool)
        return BroadcastChannels(
            configuration: configuration, deliveryPolicy: try delivery.policy(),
            transports: CurlTransportSource(keepsClient: false))
    }
}

/// `register-apns channel create NAME --storage none|latest`'s values.
enum ChannelStorageChoice: String, ExpressibleByArgument, CaseIterable {
    case none, latest

    static var allValueStrings: [String] { rawValueStrings }

    var policy: ChannelStoragePolicy { self == .none ? .none : .latest }
}

/// Warnings of a channel command (a key file others can read, a token that could not be cached).
private func warnChannel(_ message: String) { ToolSupport.warn(message, tool: RegisterAPNs.tool) }

extension RegisterAPNs.Channel {
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a channel at APNs and remember it as NAME.",
            discussion: """
                --storage latest (the default) keeps the most recent message for devices that were \
                offline or subscribe late; none keeps nothing (send-push then sends apns-expiration 0 unless \
                told otherwise: nothing waits on such a channel). The channel is recorded the moment APNs \
                answers, so its id is never lost.
                """
        )

        @Argument(help: ArgumentHelp("Your name for the channel: letters, digits, '.', '_', '-'.", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("Message storage policy.", valueName: "policy"))
        var storage: ChannelStorageChoice = .latest

        @OptionGroup var options: ChannelOptions

        func validate() throws {
            if let problem = ChannelRecord.problem(withName: name) { throw ValidationError(problem) }
        }

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let record = try options.channels().create(name: name, storagePolicy: storage.policy, warn: warnChannel)
                StandardStreams.writeOutput(
                    "created channel \(record.name): \(record.id) (\(record.environment.rawValue), storage \(storage.rawValue))\n"
                )
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the channels created here; with --remote, also what APNs has.",
            discussion: """
                Without --remote nothing is sent: the names, ids, environments and storage policies \
                of channels.json. --remote asks APNs for every channel of the app in the chosen \
                environment and marks ids it has that no name here refers to ("unknown"), and names \
                whose channel APNs no longer has ("gone").
                """
        )

        @Flag(help: "Ask APNs for the app's channels in the chosen environment.")
        var remote = false

        @Flag(help: "One JSON object per line.")
        var json = false

        @OptionGroup var options: ChannelOptions

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let channels = try options.channels()
                let records = try channels.store.load()
                guard remote else {
                    if records.isEmpty, !json {
                        StandardStreams.writeError("\(RegisterAPNs.tool): no channels in \(channels.store.path)\n")
                    }
                    StandardStreams.writeOutput(records.map { line(for: $0, state: nil) }.joined())
                    return
                }
                let environment = channels.configuration.environment.value
                let ids = try channels.list(environment: environment, warn: warnChannel)
                let known = Set(ids)
                var text = ""
                for record in records {
                    let state = record.environment != environment ? nil : (known.contains(record.id) ? "live" : "gone")
                    text += line(for: record, state: state)
                }
                let named = Set(records.filter { $0.environment == environment }.map(\.id))
                for id in ids where !named.contains(id) {
                    text +=
                        json
                        ? JSONValue.object([
                            "name": .null, "id": .string(id), "environment": .string(environment.rawValue),
                            "state": .string("unknown"),
                        ]).serializedString() + "\n"
                        : "-  \(id)  \(environment.rawValue)  -  unknown (at APNs, no name here)\n"
                }
                StandardStreams.writeOutput(text)
                StandardStreams.writeError(
                    "\(RegisterAPNs.tool): APNs has \(ids.count) channel\(ids.count == 1 ? "" : "s") in \(environment.rawValue)\n"
                )
            }
        }

        private func line(for record: ChannelRecord, state: String?) -> String {
            if json {
                var members: [String: JSONValue] = [
                    "name": .string(record.name), "id": .string(record.id),
                    "environment": .string(record.environment.rawValue),
                    "storage": record.storagePolicy.map { .string($0.name) } ?? .null,
                    "created_at": .string(ISO8601Timestamp.format(record.createdAt)),
                ]
                if let state { members["state"] = .string(state) }
                return JSONValue.object(members).serializedString() + "\n"
            }
            var text = "\(TerminalText.field(record.name))  \(record.id)  \(record.environment.rawValue)  "
            text += "storage \(record.storagePolicy?.name ?? "?")"
            if let state { text += "  \(state)" }
            return text + "\n"
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a channel, by name or id, as recorded here and as APNs keeps it.")

        @Argument(help: ArgumentHelp("A channel name, or an id.", valueName: "name|id"))
        var channel: String

        @OptionGroup var options: ChannelOptions

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let channels = try options.channels()
                let target = try channels.resolve(channel)
                var text = ""
                if let record = target.record {
                    text += "name: \(TerminalText.field(record.name))\n"
                }
                text += "id: \(target.id)\nenvironment: \(target.environment.rawValue)\n"
                if let record = target.record {
                    text += "created_at: \(ISO8601Timestamp.format(record.createdAt))\n"
                }
                let remote = try channels.read(target, warn: warnChannel)
                text += "storage: \(remote.storagePolicy?.name ?? "unknown")\n"
                text += "push_type: \(remote.pushType ?? "unknown")\n"
                StandardStreams.writeOutput(text)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a channel at APNs, by name or id, and forget its name.",
            discussion: """
                A name whose channel APNs no longer has (ChannelNotRegistered) is forgotten too. Apple \
                asks to delete channels once their event is over, to stay under the 10,000 limit.
                """
        )

        @Argument(help: ArgumentHelp("A channel name, or an id.", valueName: "name|id"))
        var channel: String

        @OptionGroup var options: ChannelOptions

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let channels = try options.channels()
                let target = try channels.resolve(channel)
                switch try channels.delete(target, warn: warnChannel) {
                case .deleted:
                    StandardStreams.writeOutput("deleted channel \(target.label) (\(target.environment.rawValue))\n")
                case .alreadyGone:
                    StandardStreams.writeOutput(
                        "forgot channel \(target.label): APNs no longer had it in \(target.environment.rawValue)\n")
                }
            }
        }
    }
}
