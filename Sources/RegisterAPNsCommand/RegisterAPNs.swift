import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeRegistry
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct RegisterAPNs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-apns",
        abstract: "Keep the map from your app's device ids to their current APNs tokens.",
        discussion: """
            The devices file is --state-file, else APNS_STATE_FILE, else state_file in the config, \
            else devices.json in the state directory; a postgres:// URL there keeps the registry in \
            PostgreSQL (see db migrate). A rotated token replaces the old one; a token \
            already registered under another device id moves to the new one. Changes are atomic and \
            safe to run from many processes at once.
            Exit status: 0 done, 64 usage, 65 bad input (token, body, corrupt state file), \
            66 input file missing, 69 the database refused, 73 state file cannot be created, 74 I/O error, \
            75 state file kept being rewritten by a program that takes no lock, or the database unreachable, \
            78 the database not usable as configured.
            """,
        version: PushKitFree.version,
        subcommands: [
            Add.self, Remove.self, List.self, MakeContentKey.self, Import.self, Convert.self, Briefing.self,
            Channel.self, Database.self, Serve.self,
        ],
        defaultSubcommand: Add.self
    )

    static let tool = "register-apns"

    /// The registry the configuration (config file, state file flag, environment) names.
    static func registry(_ configFile: ConfigFileOption, _ state: StateFileOption) throws -> any RegistryStore {
        let configuration = try ToolSupport.configuration(ConfigurationFlags(configFile, state), tool: tool)
        return configuration.registry()
    }

    /// `register-apns serve ...` is handed whole to the `register-apns-serve` program (its own
    /// `--help` included) before any parsing here; the other subcommands parse as usual.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "serve" {
            Serve.replaceProcess(arguments: Array(arguments.dropFirst()))
        }
        mainEscapingMessages()
    }
}

extension RegisterAPNs {
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract:
                "Serve the HTTP endpoint your app registers with, and the webhooks that send (see register-apns serve --help).",
            discussion: "Runs the register-apns-serve program installed beside register-apns, with the same arguments."
        )

        /// Declared for completion scripts and the manual page; `register-apns-serve` parses them.
        @OptionGroup var options: ServeOptions

        func run() throws {
            // Reached only when `serve` is not the first argument (`main()` hands that case over
            // before parsing): the server gets everything after the word `serve`.
            let arguments = CommandLine.arguments.dropFirst()
            Self.replaceProcess(arguments: Array(arguments.drop { $0 != "serve" }.dropFirst()))
        }

        /// Runs register-apns-serve in place of this process; exits 69 when it cannot.
        static func replaceProcess(arguments: [String]) -> Never {
            let problem = CompanionExecutable.replaceProcess(with: "register-apns-serve", arguments: arguments)
            StandardStreams.writeError("\(RegisterAPNs.tool): serve: \(problem)\n")
            Glibc.exit(ExitStatus.unavailable.rawValue)
        }
    }
}

extension RegisterAPNs {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add or update a device (the default: `register-apns DEVICE_ID APNS_TOKEN` works).",
            discussion: """
                Updating keeps registered_at, refreshes last_seen_at and replaces only the fields given. \
                The token is an APNs device token (hex) or an FCM registration token (with one ':'), told \
                apart by shape; --transport apns|fcm (in a body: "transport") says which outright, and a \
                token of the other shape then exits 65. \
                --environment (or --sandbox, --production) is the APNs environment of this device's token; \
                with an FCM token, which has none, it is a usage error. \
                With --from-json, the body an app posts is read from a file or '-' (standard input): \
                {"device_token": "<device id>", "apns_token": "<hex>"} or {"device_token": "<hex>", \
                "device_name": ..., "device_model": ..., "os_version": ..., "app_version": ...}, one \
                object, an array, or one object per line. Flags fill in what a body leaves out. \
                --push-to-start-token stores the device's ActivityKit push-to-start token (in a body: \
                "push_to_start_token"), which send-push --live-activity start uses; registering without \
                one keeps the stored one. --content-key (or --content-key-file, '-' for standard input) \
                stores the install's 32-byte key for send-push --encrypt, standard base64 (in a body: \
                "content_key"); registering without one keeps the stored one. A key that is not base64 \
                or not 32 bytes exits 65 and nothing is written.
                """
        )

        @Argument(help: ArgumentHelp("The app's id for this install.", valueName: "device-id"))
        var deviceID: String?

        @Argument(
            help: ArgumentHelp("The APNs device token (hex), or an FCM registration token.", valueName: "apns-token"))
        var token: String?

        @Option(
            help: ArgumentHelp(
                "Which service the token is for; without it, told by the token's shape.", valueName: "transport"))
        var transport: PushTransport?

        @Option(
            name: .customLong("from-json"),
            help: ArgumentHelp(
                "Read registration bodies from a file, or '-' for standard input (at most 64 MiB).", valueName: "file"))
        var bodyPath: String?

        // Free text may start with '-' ("- work phone"): these take the next argument whatever it is.
        @Option(parsing: .unconditional, help: ArgumentHelp("The device's name.", valueName: "name"))
        var name: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("The device's model, e.g. iPhone15,2.", valueName: "model"))
        var model: String?

        @Option(
            name: .customLong("os-version"), parsing: .unconditional,
            help: ArgumentHelp("The OS version.", valueName: "version"))
        var osVersion: String?

        @Option(
            name: .customLong("app-version"), parsing: .unconditional,
            help: ArgumentHelp("The app's version.", valueName: "version"))
        var appVersion: String?

        @Option(
            name: .customLong("group"),
            help: ArgumentHelp(
                "A group to put the device in; repeat for several. Replaces its groups.", valueName: "group"))
        var groups: [String] = []

        @Option(
            name: .customLong("push-to-start-token"),
            help: ArgumentHelp(
                "The device's ActivityKit push-to-start token, hex, for starting Live Activities.", valueName: "hex"))
        var pushToStartToken: String?

        @Option(
            name: .customLong("timezone"),
            help: ArgumentHelp(
                "The device's IANA time zone, e.g. Europe/Berlin (for quiet hours in the device's zone).",
                valueName: "zone"))
        var timeZone: String?

        @Option(
            name: .customLong("content-key"),
            help: ArgumentHelp(
                "The install's content key for encrypted sends: 32 bytes, standard base64.", valueName: "base64"))
        var contentKey: String?

        @Option(
            name: .customLong("content-key-file"),
            help: ArgumentHelp(
                "Read the content key (base64) from a file (at most 4 KiB), or '-' for standard input, keeping it off the command line.",
                valueName: "file"))
        var contentKeyFile: String?

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption
        @OptionGroup(title: "Device environment") var environment: EnvironmentOptions

        func validate() throws {
            if contentKey != nil && contentKeyFile != nil {
                throw ValidationError("give either --content-key or --content-key-file, not both")
            }
            if transport == .fcm, environment.chosen != nil {
                throw ValidationError(Self.environmentWithFCM)
            }
            if bodyPath != nil {
                if contentKey != nil || contentKeyFile != nil {
                    throw ValidationError(
                        "--content-key goes with DEVICE_ID APNS_TOKEN; in --from-json bodies use \"content_key\"")
                }
                if deviceID != nil || token != nil {
                    throw ValidationError("give either DEVICE_ID APNS_TOKEN or --from-json, not both")
                }
                if pushToStartToken != nil {
                    throw ValidationError(
                        "--push-to-start-token goes with DEVICE_ID APNS_TOKEN; in --from-json bodies use \"push_to_start_token\""
                    )
                }
            }
        }

        /// Missing arguments are reported here rather than in `validate()`: argument parser validates
        /// before it looks for unknown options, so `register-apns --bogus` would be told about a
        /// missing DEVICE_ID instead of its unknown option.
        private func checkArguments() throws {
            guard bodyPath == nil else { return }
            if deviceID == nil { throw ValidationError("missing DEVICE_ID and APNS_TOKEN (or --from-json FILE|-)") }
            guard let token else { throw ValidationError("missing APNS_TOKEN after the device id") }
            // A token of neither shape is bad input (65), reported when the registration is made.
            if environment.chosen != nil, transport == nil,
                (try? DeviceToken(validating: token, transport: nil))?.transport == .fcm
            {
                throw ValidationError(Self.environmentWithFCM)
            }
        }

        /// Why `--environment` is refused beside an FCM token.
        static let environmentWithFCM =
            "--environment, --sandbox and --production name an APNs environment; an FCM registration token has none"

        func run() throws {
            try checkArguments()
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let registrations = try makeRegistrations()
                let registry = try RegisterAPNs.registry(configFile, state)
                for outcome in try registry.register(registrations) {
                    StandardStreams.writeOutput(Self.describe(outcome) + "\n")
                }
            }
        }

        /// Everything is validated before the state file is touched.
        private func makeRegistrations() throws -> [DeviceRegistration] {
            if let timeZone, !SystemTimeZone.exists(timeZone) {
                throw RegistryError.invalidInput(
                    "--timezone \"\(timeZone)\" is not an IANA time zone (like Europe/Berlin) of the tz database")
            }
            var registrations = try parsedRegistrations()
            for index in registrations.indices where registrations[index].timeZone == nil {
                registrations[index].timeZone = timeZone
            }
            return registrations
        }

        private func parsedRegistrations() throws -> [DeviceRegistration] {
            let defaults = DeviceRegistration.Defaults(
                environment: environment.chosen, name: name, model: model, osVersion: osVersion,
                appVersion: appVersion, groups: groups.isEmpty ? nil : groups, transport: transport
            )
            if let bodyPath {
                let (data, source) = try readInput(bodyPath)
                return try DeviceRegistration.parseRequestBodies(data, source: source, defaults: defaults)
            }
            guard let deviceID, let token else { return [] }
            let deviceToken = try DeviceToken(validating: token, stated: transport, statedBy: "--transport")
            var startToken: DeviceToken?
            if let pushToStartToken {
                do throws(DeviceTokenError) {
                    startToken = try DeviceToken(validating: pushToStartToken)
                } catch {
                    throw DeviceTokenError("--push-to-start-token: \(error.message)")
                }
            }
            return [
                try DeviceRegistration(
                    deviceID: deviceID, token: deviceToken, environment: defaults.environment,
                    name: name, model: model, osVersion: osVersion, appVersion: appVersion, groups: defaults.groups,
                    pushToStartToken: startToken, contentKey: try givenContentKey()
                )
            ]
        }

        /// `--content-key`, or the key `--content-key-file` holds; `nil` when neither is given.
        /// - Throws: `ContentKeyError` (65) naming the flag, never quoting the key; `InputFileError`
        ///   (66) for a file that cannot be read.
        private func givenContentKey() throws -> ContentKey? {
            let text: String
            let flag: String
            if let contentKey {
                (text, flag) = (contentKey, "--content-key")
            } else if let contentKeyFile {
                let data = try InputFile.read(
                    contentKeyFile, named: "--content-key-file \(contentKeyFile)", limit: InputFile.keyLimit)
                // A file's (or a pipe's) line break is not part of the key.
                (text, flag) = (
                    String(decoding: data, as: UTF8.self).trimmingWhitespace, "--content-key-file \(contentKeyFile)"
                )
            } else {
                return nil
            }
            do throws(ContentKeyError) {
                return try ContentKey(base64: text)
            } catch {
                throw ContentKeyError("\(flag): \(error.message)")
            }
        }

        private static func describe(_ outcome: RegisteredDevices.RegistrationOutcome) -> String {
            let record = outcome.device.record
            var text =
                "\(outcome.isNew ? "added" : "updated") \(TerminalText.field(outcome.device.id)): token \(record.token.masked)"
            if record.token.transport != .apns { text += " (\(record.token.transport.rawValue))" }
            if outcome.tokenChanged { text += " (new token)" }
            if let pushToStartToken = record.pushToStartToken { text += ", push-to-start \(pushToStartToken.masked)" }
            if let environment = record.environment { text += ", \(environment.rawValue)" }
            if record.contentKey != nil { text += ", content key" }
            if !outcome.movedFrom.isEmpty {
                text += "; token moved from " + outcome.movedFrom.map { TerminalText.field($0) }.joined(separator: ", ")
            }
            return text
        }
    }

    struct Briefing: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "briefing",
            abstract: "Show or set when a device gets its daily briefing (send-push --due briefing sends it).",
            discussion: """
                The time is a local time of day in the device's IANA time zone, not an instant: a device \
                set to 07:00 America/New_York gets its briefing at 07:00 New York time every day, across \
                daylight saving changes. Apps set it themselves with the gateway's briefing_config message \
                (register-apns serve). Without --time, --timezone, --source or --off, shows the settings. \
                Exit 65 for a device that is not registered or a zone the tz database lacks.
                """
        )

        @Argument(help: ArgumentHelp("A registered device id.", valueName: "device-id"))
        var deviceID: String

        @Option(help: ArgumentHelp("Local time of day, HH:MM.", valueName: "time")) var time: String?
        @Option(
            name: .customLong("timezone"),
            help: ArgumentHelp("IANA time zone, e.g. America/New_York.", valueName: "zone"))
        var timeZone: String?
        @Option(
            name: .customLong("source"),
            help: ArgumentHelp(
                "What the briefing should contain; repeat for several. Replaces the list.", valueName: "name"))
        var sources: [String] = []
        @Flag(help: "Turn the device's briefing off (its time and zone are kept).") var off = false

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let registry = try RegisterAPNs.registry(configFile, state)
                guard let record = try registry.load()[deviceID] else {
                    throw RegistryError.unknownDevice(deviceID, path: registry.location)
                }
                guard time != nil || timeZone != nil || !sources.isEmpty || off else {
                    StandardStreams.writeOutput(Self.describe(record.briefing) + "\n")
                    return
                }
                let settings = try settings(updating: record.briefing)
                guard try registry.setBriefing(settings, deviceID: deviceID) else {
                    throw RegistryError.unknownDevice(deviceID, path: registry.location)
                }
                StandardStreams.writeOutput(
                    "\(TerminalText.field(deviceID)): \(Self.describe(try registry.load()[deviceID]?.briefing))\n")
            }
        }

        /// The settings the options make of `current`, checked as the gateway checks a message.
        private func settings(updating current: BriefingSettings?) throws -> BriefingSettings {
            var members: [String: JSONValue] = [:]
            if let current { members = current.jsonValue.objectValue ?? [:] }
            if let time { members["time"] = .string(time) }
            if let timeZone { members["timezone"] = .string(timeZone) }
            if !sources.isEmpty { members["sources"] = .array(sources.map(JSONValue.string)) }
            members["enabled"] = .bool(!off)
            do throws(BriefingSettingsError) {
                return try BriefingSettings(members: members)
            } catch {
                let message = error.message.replacing("\"time\"", with: "--time").replacing(
                    "\"timezone\"", with: "--timezone")
                throw RegistryError.invalidInput(message)
            }
        }

        private static func describe(_ settings: BriefingSettings?) -> String {
            guard let settings else { return "no briefing set" }
            var text = "briefing \(settings.enabled ? "at" : "off (was at") \(settings.time) \(settings.timeZone)"
            if !settings.enabled { text += ")" }
            if !settings.sources.isEmpty { text += ", sources " + settings.sources.joined(separator: ", ") }
            if let last = settings.lastSentOn { text += ", last sent on \(last)" }
            return text
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a device by its id, or every device holding a token.",
            discussion:
                "An argument that is a registered device id is taken as one; otherwise as a token. Exit 65 when nothing matches."
        )

        @Argument(help: ArgumentHelp("A device id or a token (APNs or FCM).", valueName: "device-id-or-token"))
        var idOrToken: String

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let registry = try RegisterAPNs.registry(configFile, state)
                for device in try registry.remove(idOrToken: idOrToken) {
                    StandardStreams.writeOutput(
                        "removed \(TerminalText.field(device.id)): token \(device.record.token.masked)\n")
                }
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the registered devices, sorted by id.",
            discussion:
                "Tokens are masked (first 8 and last 4 hex digits) unless --full. --json prints one object per line: device_id and the fields as stored, full tokens. Content keys are never shown (the table says yes or -) unless --show-content-keys. A record that cannot be read (a field edited by hand) is kept and sent nothing: the table flags it in an UNREADABLE column, --json leaves it out, and a warning on standard error names it."
        )

        @Flag(help: "Print JSON Lines instead of a table.")
        var json = false

        @Flag(help: "Show whole tokens in the table.")
        var full = false

        @Flag(
            name: .customLong("show-content-keys"),
            help: "Show the devices' content keys (base64): in the table, and as content_key with --json.")
        var showContentKeys = false

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let registry = try RegisterAPNs.registry(configFile, state)
                let loaded = try registry.load()
                let devices = loaded.devices
                if json {
                    // Records that cannot be read are not lines here (each was warned about on
                    // standard error): every line is a device `import` takes back.
                    StandardStreams.writeOutput(DeviceListing.jsonLines(devices, contentKeys: showContentKeys))
                } else if devices.isEmpty, loaded.unreadableDevices.isEmpty {
                    StandardStreams.writeError("\(RegisterAPNs.tool): no devices in \(registry.location)\n")
                } else {
                    StandardStreams.writeOutput(
                        DeviceListing.table(
                            devices, unreadable: loaded.unreadableDevices, fullTokens: full,
                            contentKeys: showContentKeys))
                }
                for name in loaded.ambiguousNames {
                    StandardStreams.writeError(
                        "\(RegisterAPNs.tool): warning: \"\(name)\" is both a device id and a group in "
                            + "\(registry.location): ntfy and Bark refuse to send to it until one is renamed\n")
                }
            }
        }
    }

    struct MakeContentKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "make-content-key",
            abstract: "Make a registered device a new content key for send-push --encrypt, and print it once.",
            discussion: """
                The key (32 random bytes, standard base64, one line on standard output) is stored with the \
                device, mode 0600 like its token, and printed this once for the app to keep (in its \
                keychain, shared with its notification service extension); list shows it again only with \
                --show-content-keys. A device that has a key already keeps it unless --replace: the app \
                holding the old key cannot read what is sealed with a new one. Exit 65 for a device that \
                is not registered or already has a key.
                """
        )

        @Argument(help: ArgumentHelp("A registered device id.", valueName: "device-id"))
        var deviceID: String

        @Flag(help: "Replace a key the device has already.") var replace = false

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let registry = try RegisterAPNs.registry(configFile, state)
                let key = ContentKey.random()
                switch try registry.setContentKey(key, deviceID: deviceID, replacing: replace) {
                case .unknownDevice:
                    throw RegistryError.unknownDevice(deviceID, path: registry.location)
                case .alreadySet:
                    throw RegistryError.invalidInput(
                        "device \(TerminalText.field(deviceID)) has a content key already; --replace makes a new one "
                            + "(the app must then be given it)")
                case .stored:
                    StandardStreams.writeOutput(key.base64 + "\n")
                }
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract:
                "Merge another registry, a flat map {\"<device id>\": \"<token>\"}, `list --json` output or an SQLite devices.db.",
            discussion: """
                Per device, the record whose app registered last wins (the imported one on a tie); \
                a token stays with one device id. Nothing is written unless the whole file is valid. \
                An SQLite database (told by its header) is read from its table devices(token, device_name, \
                device_model, os_version, app_version, registered_at, last_seen_at); each device gets the id \
                derived from its token, as a registration without a device id does. Times: ISO 8601 text \
                (no zone means UTC) or UNIX seconds.
                """
        )

        @Argument(
            help: ArgumentHelp(
                "The file to import, or '-' for standard input (at most 64 MiB; SQLite has no limit).",
                valueName: "file"))
        var file: String

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let (imported, source) = try Self.devices(in: file)
                let registry = try RegisterAPNs.registry(configFile, state)
                let summary = try registry.merge(imported)
                var text = "imported \(imported.count) device\(imported.count == 1 ? "" : "s") from \(source): "
                text +=
                    "\(summary.added.count) added, \(summary.updated.count) updated, \(summary.unchanged.count) unchanged, "
                text += "\(summary.keptNewer.count) kept (registered later here)"
                if !summary.movedFrom.isEmpty {
                    text +=
                        "; tokens moved from "
                        + summary.movedFrom.map { TerminalText.field($0) }.joined(separator: ", ")
                }
                StandardStreams.writeOutput(text + "\n")
            }
        }
    }
}

extension RegisterAPNs.Import {
    /// The devices `file` holds, and how messages name it. An SQLite database is read by SQLite
    /// from its file, whatever its size (only its header is read here); anything else is read
    /// whole, up to `InputFile.registryLimit`.
    /// - Throws: `InputFileError` (66 missing, 65 too large), `RegistryError.invalidInput` (65).
    static func devices(in file: String) throws -> (RegisteredDevices, source: String) {
        if file != "-", SQLiteDatabase.isDatabase(atPath: file) {
            return (try RegisteredDevices(importingDeviceDatabase: file), file)
        }
        let (data, source) = try readInput(file)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) {
            throw RegistryError.invalidInput("nothing to import: \(source) is empty")
        }
        if SQLiteDatabase.isDatabase(data) {
            // Only standard input gets here with a database (a file's header was looked at above).
            throw RegistryError.invalidInput("an SQLite database is read from its file: give its path, not '-'")
        }
        do throws(JSONSyntaxError) {
            return (try RegisteredDevices(importing: data), source)
        } catch {
            throw RegistryError.invalidInput("\(source) is not a registry, flat map or JSON Lines: \(error.detail)")
        }
    }
}

extension RegisterAPNs {
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert",
            abstract: "Convert a flat map state file and its sidecar to version 1, once the old server is retired.",
            discussion: """
                Until then the tools keep a flat map {"<device id>": "<token>"} flat, so that server and \
                its readers keep working, and keep what it cannot hold in <file>.meta.json. This writes \
                both as one version 1 file, keeps the flat map as <file>.v0.bak and removes the sidecar. \
                A file that is already version 1 is left as it is.
                """
        )

        @OptionGroup var configFile: ConfigFileOption
        @OptionGroup var state: StateFileOption

        func run() throws {
            try ToolSupport.run(tool: RegisterAPNs.tool) {
                let flags = ConfigurationFlags(configFile, state)
                let configuration = try ToolSupport.configuration(flags, tool: RegisterAPNs.tool)
                guard let registry = configuration.registry().file else {
                    throw ConfigurationError(
                        "convert rewrites a state file; state_file is the PostgreSQL registry "
                            + configuration.registryLocation)
                }
                if let count = try registry.convertToVersionOne() {
                    let devices = "\(count) device\(count == 1 ? "" : "s")"
                    let backup = registry.legacyBackupPath
                    let text =
                        "converted \(registry.path) to version 1 (\(devices)); "
                        + "the flat map is kept as \(backup)\n"
                    StandardStreams.writeOutput(text)
                } else {
                    StandardStreams.writeOutput("\(registry.path) is not a flat map; nothing to convert\n")
                }
            }
        }
    }
}

extension RegisterAPNs {
    struct Database: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db",
            abstract: "Manage the PostgreSQL registry (state_file set to a postgres:// URL).",
            subcommands: [Migrate.self]
        )

        struct Migrate: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create the registry's tables, or bring them to this release's schema version.",
                discussion: """
                    Every first use does this too; run it ahead to check the URL, the password \
                    (PGPASSFILE, ~/.pgpass) and the privileges. Exit 0 done, 69 refused, 75 unreachable, \
                    78 not configured for PostgreSQL or not usable.
                    """
            )

            @OptionGroup var configFile: ConfigFileOption
            @OptionGroup var state: StateFileOption

            func run() throws {
                try ToolSupport.run(tool: RegisterAPNs.tool) {
                    let configuration = try ToolSupport.configuration(
                        ConfigurationFlags(configFile, state), tool: RegisterAPNs.tool)
                    let registry = configuration.registry()
                    guard let schema = registry.schema else {
                        throw ConfigurationError(
                            "db migrate works on a PostgreSQL registry; state_file is the file "
                                + configuration.registryLocation + " (set it to a postgres:// URL)")
                    }
                    let (from, to) = try schema.migrate()
                    let text =
                        from == to
                        ? "the registry \(registry.location) is at schema version \(to); nothing to do\n"
                        : "migrated the registry \(registry.location) from schema version \(from) to \(to)\n"
                    StandardStreams.writeOutput(text)
                }
            }
        }
    }
}

/// The bytes of `path`, or of standard input for `-`, with the name messages should use: at most
/// `InputFile.registryLimit`, as for registration bodies and registries to import.
/// - Throws: `InputFileError` (66) when the file is missing or cannot be read, (65) when it is
///   larger than the limit.
private func readInput(_ path: String) throws -> (data: Data, source: String) {
    let source = path == "-" ? "standard input" : path
    return (try InputFile.read(path, named: source, limit: InputFile.registryLimit), source)
}

/// `register-apns`'s entry point: the multi-call program (Sources/pushkit-free) runs it when called by that
/// name, with `CommandLine.arguments` as the tool would see them.
package enum RegisterAPNsTool {
    package static func main() { RegisterAPNs.main() }
}
