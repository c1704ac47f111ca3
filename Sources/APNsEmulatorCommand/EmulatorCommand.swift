import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeEmulator
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `apns-emulator`: a local APNs for tests and offline work.
struct EmulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-emulator",
        abstract:
            "A local APNs: an HTTP/2 server that judges push requests like Apple's and shows what devices would get.",
        discussion: """
            Prints one line, "listening on https://127.0.0.1:PORT (ca: PATH)", then one JSON line per \
            request (or into --record FILE), and a one-line summary per request on standard error. \
            Pass the CA file to clients: curl --http2 --cacert PATH ... It trusts the provider key of \
            the shared configuration (--key-path, APNS_KEY_PATH, key_path), so tokens from apns-jwt pass. \
            Control: POST /emulator/unregister/TOKEN, POST /emulator/register/TOKEN, \
            GET /emulator/requests, GET /emulator/status, and POST /emulator/answer, which plays the phone: it \
            answers the newest question push it delivered ({"choice": ID} or {"text": TEXT}). Broadcasts (POST /4/broadcasts/apps/BUNDLE) are \
            served on the same port; with --manage-port, Apple's channel management API is served on its own \
            port, announced first as "channel management on https://127.0.0.1:PORT". See docs/apns-emulator.md.
            To point the tools at it, for both environments: eval "$(apns-emulator --print-env)" (the same \
            --port, and PUSHKIT_STATE_DIR, as the emulator's) sets APNS_PRODUCTION_URL, APNS_SANDBOX_URL \
            and APNS_CA_FILE, and FCM_URL and FCM_SERVICE_ACCOUNT for Google's FCM HTTP v1 routes (POST /token, \
            POST /v1/projects/ID/messages:send) played on the same port; the emulator also names them on standard \
            error when it starts.
            """,
        version: PushKitFree.version
    )

    @OptionGroup var file: ConfigFileOption
    @OptionGroup var provider: ProviderOptions
    @OptionGroup var environment: EnvironmentOptions

    @Option(help: ArgumentHelp("Address to listen on.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("Port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 2197

    @Option(
        name: .customLong("manage-port"),
        help: ArgumentHelp(
            "Also serve the broadcast channel management API on this port (0 picks a free one).", valueName: "port"))
    var managePort: Int?

    @Option(
        name: .customLong("channel-limit"),
        help: ArgumentHelp("Broadcast channels one bundle id may have (Apple: 10000).", valueName: "n"))
    var channelLimit = EmulatorChannels.appleLimit

    @Flag(
        name: .customLong("strict-broadcast"),
        help:
            "Refuse a storage policy sent as a string, a push-type other than \"LiveActivity\", and a broadcast to a no-storage channel without apns-expiration 0 (accepted by default, with a note)."
    )
    var strictBroadcast = false

    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp("Trust this public key (PEM) instead of the .p8's public half.", valueName: "file"))
    var publicKeyPath: String?

    @Option(
        name: .customLong("cert"),
        help: ArgumentHelp("Server certificate chain (PEM); default: a generated one for localhost.", valueName: "file")
    )
    var certificatePath: String?

    @Option(
        name: .customLong("cert-key"),
        help: ArgumentHelp("The --cert certificate's private key (PEM).", valueName: "file"))
    var certificateKeyPath: String?

    @Option(
        name: .customLong("max-streams"),
        help: ArgumentHelp(
            "SETTINGS_MAX_CONCURRENT_STREAMS after the first valid provider token (1 before).", valueName: "n"))
    var maxStreams = 1000

    @Flag(
        name: .customLong("lenient-token-updates"),
        help: "Do not answer 429 TooManyProviderTokenUpdates to tokens replaced within 20 minutes.")
    var lenientTokenUpdates = false

    @Flag(
        name: .customLong("global-token-updates"),
        help:
            "Answer 429 TooManyProviderTokenUpdates to a new token within 20 minutes of the key's previous one on any connection (APNs counts per connection)."
    )
    var globalTokenUpdates = false

    @Flag(
        name: .customLong("require-aps"),
        help:
            "Answer 400 BadPayload to a payload without an \"aps\" object (APNs delivers it, and so does the emulator by default)."
    )
    var requireAps = false

    @Flag(
        name: .customLong("strict-iat"),
        help:
            "Refuse a provider token whose iat is a numeric string (APNs accepts it, and so does the emulator by default)."
    )
    var strictIssuedAt = false

    @Flag(
        name: .customLong("strict-signature"),
        help:
            "Refuse a provider token signed in DER (as openssl dgst -sign makes it) rather than the JWS's 64-byte r||s (APNs accepts it, and so does the emulator by default)."
    )
    var strictSignature = false

    @Flag(
        name: .customLong("strict-payload"),
        help:
            "Answer 400 BadPayload to a malformed critical sound or interruption level, a background push with more than content-available 1, and an image_url without mutable-content, an alert or https (APNs accepts them, and so does the emulator by default)."
    )
    var strictPayload = false

    @Option(
        name: .customLong("trust-key"),
        help: ArgumentHelp(
            "Also trust this key of the same team under key id KID: a .p8 or a PEM public key (repeatable).",
            valueName: "kid=file"))
    var trustKey: [String] = []

    @Option(
        name: .customLong("key-environment"),
        help: ArgumentHelp(
            "Limit a key to sandbox or production: the configured key, or KID=ENV; in the other environment "
                + "it is answered 403 BadEnvironmentKeyIdInToken (repeatable).",
            valueName: "[kid=]env"))
    var keyEnvironment: [String] = []

    @Option(
        name: .customLong("key-topics"),
        help: ArgumentHelp(
            "Make a key topic-specific: the bundle ids it may push to, comma-separated, for the configured key "
                + "or KID=IDS; other topics are answered 400 TopicDisallowed (repeatable).",
            valueName: "[kid=]ids"))
    var keyTopics: [String] = []

    @Option(
        help: ArgumentHelp(
            "Answer 410 Unregistered for this device token, 404 UNREGISTERED for an FCM registration token (repeatable).",
            valueName: "token"))
    var unregistered: [String] = []

    @Option(help: ArgumentHelp("Answer 410 ExpiredToken for this device token (repeatable).", valueName: "token"))
    var expired: [String] = []

    @Option(
        name: .customLong("unregistered-file"),
        help: ArgumentHelp(
            "Device tokens to answer 410 Unregistered, one per line, optionally with a time in ms.", valueName: "file"))
    var unregisteredFile: String?

    @Option(
        name: .customLong("wrong-environment"),
        help: ArgumentHelp(
            "Answer 400 BadDeviceToken for this device token, as for a token of the other environment (repeatable).",
            valueName: "token"))
    var wrongEnvironment: [String] = []

    @Option(
        name: .customLong("script-file"),
        help: ArgumentHelp(
            "Answer device tokens request by request: lines of TOKEN STEP,STEP,... with steps ok, stall, delay:MS or STATUS:REASON; the last step repeats.",
            valueName: "file"))
    var scriptFile: String?

    @Option(
        name: .customLong("fail-first"),
        help: ArgumentHelp(
            "Fail the first N valid requests per device token, e.g. 1:500:InternalServerError.",
            valueName: "n:status:reason"))
    var failFirst: String?

    @Option(
        name: .customLong("fail-rate"),
        help: ArgumentHelp(
            "Fail valid requests with probability P (0-1 or %), e.g. 0.1:503:ServiceUnavailable.",
            valueName: "p:status:reason"))
    var failRate: String?

    @Option(help: ArgumentHelp("Seed for --fail-rate, to repeat a run.", valueName: "n"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Wait this many milliseconds before each answer.", valueName: "ms"))
    var delay = 0

    @Option(
        name: .customLong("goaway-after"),
        help: ArgumentHelp("Send GOAWAY and close each connection after N streams.", valueName: "n"))
    var goAwayAfter: Int?

    @Option(
        name: .customLong("drop-after"),
        help: ArgumentHelp("Reset each connection (TCP RST, no answer) when stream N+1 arrives.", valueName: "n"))
    var dropAfter: Int?

    @Option(
        name: .customLong("go-silent-after"),
        help: ArgumentHelp(
            "The first connection to open stream N+1 stops reading and answering without closing (later ones work).",
            valueName: "n"))
    var goSilentAfter: Int?

    @Option(
        help: ArgumentHelp(
            "Append request records (JSON lines) to this file; '-' is standard output.", valueName: "file"))
    var record = "-"

    @Flag(help: "No one-line request summaries on standard error.")
    var quiet = false

    @Flag(
        name: .customLong("print-env"),
        help:
            "Print the settings that point the tools at this emulator (APNS_PRODUCTION_URL, APNS_SANDBOX_URL, APNS_CA_FILE, FCM_URL, FCM_SERVICE_ACCOUNT) as export lines for eval, and exit."
    )
    var printEnvironment = false

    @Option(help: ArgumentHelp("Event-loop threads (default: one per core).", valueName: "n"))
    var threads: Int?

    @Option(
        name: .customLong("answer-ca"),
        help: ArgumentHelp(
            "Also trust this CA (PEM) when POST /emulator/answer posts to an https answer URL (besides the system's roots).",
            valueName: "file"))
    var answerCAPath: String?

    @Option(
        name: .customLong("fcm-project"),
        help: ArgumentHelp(
            "The Firebase project id the FCM routes play (its service account is written beside the CA file).",
            valueName: "id"))
    var fcmProject = EmulatorServiceAccount.defaultProjectID

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535, not \(port)") }
        if let managePort, !(0...65535).contains(managePort) {
            throw ValidationError("--manage-port must be from 0 to 65535, not \(managePort)")
        }
        guard channelLimit >= 0 else { throw ValidationError("--channel-limit must be 0 or more, not \(channelLimit)") }
        guard maxStreams >= 1 else { throw ValidationError("--max-streams must be at least 1, not \(maxStreams)") }
        guard delay >= 0 else { throw ValidationError("--delay must be 0 or more milliseconds, not \(delay)") }
        if let goAwayAfter, goAwayAfter < 1 {
            throw ValidationError("--goaway-after must be at least 1, not \(goAwayAfter)")
        }
        if let dropAfter, dropAfter < 0 { throw ValidationError("--drop-after must be 0 or more, not \(dropAfter)") }
        if let goSilentAfter, goSilentAfter < 0 {
            throw ValidationError("--go-silent-after must be 0 or more, not \(goSilentAfter)")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, not \(threads)") }
        if printEnvironment, port == 0 || managePort == 0 {
            throw ValidationError(
                "--print-env needs the port the emulator listens on: give the same --port (and --manage-port) as the emulator, not 0"
            )
        }
        guard EmulatorServiceAccount.isProjectID(fcmProject) else {
            throw ValidationError(
                "--fcm-project must be 6 to 30 lowercase letters, digits and hyphens, starting with a letter, not \"\(fcmProject)\""
            )
        }
        if (certificatePath == nil) != (certificateKeyPath == nil) {
            throw ValidationError("--cert and --cert-key go together")
        }
        if publicKeyPath != nil, provider.keyPath != nil {
            throw ValidationError("--public-key and --key-path cannot be used together")
        }
        for entry in trustKey {
            let (keyID, path) = KeyScope.split(entry)
            guard let keyID, !keyID.isEmpty, !path.isEmpty else {
                throw ValidationError(
                    "--trust-key must be KID=FILE, e.g. ABCDE12345=AuthKey_ABCDE12345.p8, not \"\(entry)\"")
            }
        }
        for entry in keyEnvironment where APNsEnvironment(userText: KeyScope.split(entry).value) == nil {
            throw ValidationError("--key-environment must be sandbox or production, or KID=ENV, not \"\(entry)\"")
        }
        for entry in keyTopics {
            let topics = KeyScope.split(entry).value.split(separator: ",")
            guard !topics.isEmpty, topics.allSatisfy({ !$0.contains(" ") && !$0.contains("/") }) else {
                throw ValidationError(
                    "--key-topics must be bundle ids separated by commas, or KID=IDS, not \"\(entry)\"")
            }
        }
        for token in unregistered + wrongEnvironment + expired where !APNsRequestValidator.isHexOfEvenLength(token) {
            if unregistered.contains(token), FCMMessageJudge.isRegistrationTokenShaped(token) { continue }
            throw ValidationError("\"\(token)\" is not a device token (hex digits, even length)")
        }
        do {
            _ = try failFirst.map(FailFirstFault.init(argument:))
            _ = try failRate.map(FailRateFault.init(argument:))
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        try ToolSupport.run(tool: "apns-emulator") {
            let settings = try ToolSupport.configuration(
                ConfigurationFlags(file, provider, environment), tool: "apns-emulator")
            let tls: EmulatorTLSMaterial
            if let certificatePath, let certificateKeyPath {
                tls = try EmulatorTLSMaterial.load(certificatePath: certificatePath, keyPath: certificateKeyPath)
            } else {
                let made = try EmulatorTLSMaterial.loadOrCreate(
                    in: settings.stateDirectory.value + "/emulator", host: host,
                    temporaryDirectory: ToolSupport.environment["TMPDIR"])
                if let warning = made.warning { ToolSupport.warn(warning, tool: "apns-emulator") }
                tls = made.material
            }
            // Beside the generated CA file (wherever it went); with --cert, in the emulator's state directory.
            let fcmDirectory =
                certificatePath == nil
                ? String(tls.caPath[..<(tls.caPath.lastIndex(of: "/") ?? tls.caPath.startIndex)])
                : settings.stateDirectory.value + "/emulator"
            let fcmAccountPath = fcmDirectory + "/" + EmulatorServiceAccount.fileName
            let fcmAccount: EmulatorServiceAccount
            do {
                fcmAccount = try EmulatorServiceAccount.loadOrCreate(in: fcmDirectory, projectID: fcmProject)
                try fcmAccount.write(to: fcmAccountPath, tokenURI: tokenURI(port: port))
            } catch {
                throw EmulatorSetupError(
                    "cannot keep the FCM service account in \(fcmDirectory): \(error)", exitStatus: .cannotCreate)
            }
            if printEnvironment {
                let settings =
                    clientSettings(port: port, managePort: managePort, caPath: tls.caPath)
                    + fcmSettings(port: port, accountPath: fcmAccountPath)
                StandardStreams.writeOutput(
                    settings.map { "export \($0.name)=\(Self.shellQuoted($0.value))\n" }.joined())
                return
            }
            var trust = try APNsRequestValidator.Trust.load(from: settings, publicKeyPath: publicKeyPath)
            trust.strictIssuedAt = strictIssuedAt
            trust.strictSignature = strictSignature
            trust.requireAps = requireAps
            trust.strictPayload = strictPayload
            try scopeKeys(&trust)

            var configuration = EmulatorConfiguration(trust: trust, tls: tls)
            configuration.host = host
            configuration.port = port
            configuration.environment = settings.environment.value
            configuration.maximumConcurrentStreams = maxStreams
            configuration.lenientTokenUpdates = lenientTokenUpdates
            configuration.globalTokenUpdates = globalTokenUpdates
            configuration.deviceStates = try deviceStates()
            if let scriptFile {
                // A script is a few lines per device: 1 MiB is room for thousands of them.
                let data = try InputFile.read(scriptFile, named: "--script-file \(scriptFile)", limit: 1 << 20)
                configuration.deviceScript = try DeviceScript.parse(
                    String(decoding: data, as: UTF8.self), origin: "--script-file \(scriptFile)")
            }
            configuration.failFirst = try failFirst.map(FailFirstFault.init(argument:))
            configuration.failRate = try failRate.map(FailRateFault.init(argument:))
            configuration.seed = seed
            configuration.delayMilliseconds = Int64(delay)
            configuration.goAwayAfter = goAwayAfter
            configuration.dropAfter = dropAfter
            configuration.goSilentAfter = goSilentAfter
            configuration.threads = threads
            configuration.managePort = managePort
            configuration.channelLimit = channelLimit
            configuration.strictBroadcast = strictBroadcast
            configuration.fcm = (fcmAccount, tokenURI(port: port))
            if let answerCAPath {
                let data = try InputFile.read(answerCAPath, named: "--answer-ca \(answerCAPath)", limit: 1 << 20)
                configuration.answerTrustPEM = String(decoding: data, as: UTF8.self)
            }

            let recordDescriptor = try openRecord()
            let emulator = try APNsEmulator(
                configuration: configuration, recordDescriptor: recordDescriptor,
                closesRecordDescriptor: recordDescriptor != 1, quiet: quiet)
            let boundPort = try emulator.start()
            emulator.fcmTokenURI = tokenURI(port: boundPort)
            try fcmAccount.write(to: fcmAccountPath, tokenURI: tokenURI(port: boundPort))
            emulator.stopOnSignals()
            if let managementPort = emulator.managementPort {
                StandardStreams.writeOutput(
                    "channel management on https://\(displayHost):\(managementPort) (ca: \(tls.caPath))\n")
            }
            StandardStreams.writeOutput("listening on https://\(displayHost):\(boundPort) (ca: \(tls.caPath))\n")
            if !quiet {
                let settings =
                    clientSettings(port: boundPort, managePort: emulator.managementPort, caPath: tls.caPath)
                    + fcmSettings(port: boundPort, accountPath: fcmAccountPath)
                StandardStreams.writeError(
                    "apns-emulator: point the tools at it (both environments) with: export "
                        + settings.map { "\($0.name)=\(Self.shellQuoted($0.value))" }.joined(separator: " ") + "\n")
            }
            emulator.openOutputs()
            emulator.waitUntilStopped()
        }
    }

    /// The settings that send the tools' requests of both environments here: the URLs, the
    /// management URLs when the management API is served, and the CA file that signed the certificate.
    private func clientSettings(port: Int, managePort: Int?, caPath: String) -> [(name: String, value: String)] {
        let origin = "https://\(displayHost):\(port)"
        var settings = [("APNS_PRODUCTION_URL", origin), ("APNS_SANDBOX_URL", origin)]
        if let managePort {
            let management = "https://\(displayHost):\(managePort)"
            settings += [("APNS_PRODUCTION_MANAGE_URL", management), ("APNS_SANDBOX_MANAGE_URL", management)]
        }
        return settings.map { (name: $0.0, value: $0.1) } + [(name: "APNS_CA_FILE", value: caPath)]
    }

    /// The emulator's OAuth token endpoint, the service account's `token_uri`.
    private func tokenURI(port: Int) -> String {
        "https://\(displayHost):\(port)\(FCMEndpoint.tokenPath)"
    }

    /// The settings that send FCM requests here: the API's origin and the service account file.
    private func fcmSettings(port: Int, accountPath: String) -> [(name: String, value: String)] {
        [(name: "FCM_URL", value: "https://\(displayHost):\(port)"), (name: "FCM_SERVICE_ACCOUNT", value: accountPath)]
    }

    /// `text` as one word for a POSIX shell: in single quotes, each `'` written `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }

    /// The host as clients write it in a URL: loopback for the wildcard addresses, IPv6 in brackets.
    private var displayHost: String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "[::1]"
        default: host.contains(":") ? "[\(host)]" : host
        }
    }

    private func deviceStates() throws -> ScriptedDeviceStates {
        var states = ScriptedDeviceStates()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if let unregisteredFile {
            let data = try InputFile.read(
                unregisteredFile, named: "--unregistered-file \(unregisteredFile)", limit: InputFile.registryLimit)
            let entries = try ScriptedDeviceStates.parseTokenList(
                String(decoding: data, as: UTF8.self), origin: "--unregistered-file \(unregisteredFile)")
            for entry in entries { states.unregister(entry.token, at: entry.timestamp ?? now) }
        }
        for token in unregistered { states.unregister(token, at: now) }
        for token in expired { states.expire(token, at: now) }
        for token in wrongEnvironment { states.markWrongEnvironment(token) }
        return states
    }

    /// `--trust-key`, `--key-environment` and `--key-topics` applied to `trust`.
    /// - Throws: a usage error for a key id that names no trusted key; `ProviderKeyError` for a key
    ///   file that cannot be read.
    private func scopeKeys(_ trust: inout APNsRequestValidator.Trust) throws {
        for entry in trustKey {
            let (keyID, path) = KeyScope.split(entry)
            guard let keyID, keyID != trust.keyID else {
                throw KeyScopeError("--trust-key \(entry): \(trust.keyID) is already the configured key id")
            }
            trust.otherKeys[keyID] = try APNsRequestValidator.Trust.loadPublicKey(
                path: path, origin: "--trust-key \(entry)")
        }
        func scopedKeyID(_ named: String?, flag: String) throws -> String {
            let keyID = named ?? trust.keyID
            guard keyID == trust.keyID || trust.otherKeys[keyID] != nil else {
                throw KeyScopeError(
                    "\(flag) names key id \(keyID), which is neither the configured key id (\(trust.keyID)) "
                        + "nor one given with --trust-key")
            }
            return keyID
        }
        for entry in keyEnvironment {
            let (named, value) = KeyScope.split(entry)
            let keyID = try scopedKeyID(named, flag: "--key-environment")
            trust.keyScopes[keyID, default: .unrestricted].environment = APNsEnvironment(userText: value)
        }
        for entry in keyTopics {
            let (named, value) = KeyScope.split(entry)
            let keyID = try scopedKeyID(named, flag: "--key-topics")
            trust.keyScopes[keyID, default: .unrestricted].topics = Set(value.split(separator: ",").map(String.init))
        }
    }

    private func openRecord() throws -> Int32 {
        if record == "-" { return 1 }
        let descriptor = open(record, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw FileSystemError("cannot open --record", path: record, errno: errno, exitStatus: .cannotCreate)
        }
        return descriptor
    }
}

/// `apns-emulator`'s entry point: the server program (Sources/pushkit-free-server) runs it when
/// called by that name.
package enum APNsEmulatorTool {
    package static func main() { EmulatorCommand.main() }
}
