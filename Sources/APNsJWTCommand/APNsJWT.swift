import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeTransport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct APNsJWT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-jwt",
        abstract: "Print an APNs provider token (ES256 JWT), reused across runs for 50 minutes.",
        discussion: """
            Prints the token and a newline, nothing else, so this works:
              curl --http2 -H "authorization: bearer $(apns-jwt)" ...
            The token is cached in the state directory and reused while younger than 50 minutes \
            (APNs refuses tokens older than an hour and throttles new ones within 20 minutes).
            """,
        version: PushKitFree.version,
        subcommands: [Print.self, Decode.self, Check.self],
        defaultSubcommand: Print.self
    )

    /// `apns-jwt` alone, the way scripts call it (`$(apns-jwt)`), prints the token without argument
    /// parsing: with nothing to parse, argument parsing's reflection over the commands was more than
    /// half of a warm run. Every other command line is parsed as usual.
    static func main() {
        guard CommandLine.arguments.count == 1 else { return mainEscapingMessages() }
        do {
            try Print.printToken(ConfigurationFlags(), refresh: false)
        } catch {
            exit(withError: error)
        }
    }
}

extension APNsJWT {
    struct Print: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print the current provider token (the default)."
        )

        @OptionGroup var file: ConfigFileOption
        @OptionGroup var provider: ProviderOptions

        @Flag(help: "Mint a new token even if the cached one is fresh (after APNs rejected it).")
        var refresh = false

        func run() throws {
            try Self.printToken(ConfigurationFlags(file, provider), refresh: refresh)
        }

        /// Prints the cached token, or a new one when there is none, it is stale, or `refresh`.
        static func printToken(_ flags: ConfigurationFlags, refresh: Bool) throws {
            try ToolSupport.run(tool: "apns-jwt") {
                let configuration = try ToolSupport.configuration(flags, tool: "apns-jwt")
                let credentials = try ProviderCredentials.load(from: configuration)
                if let warning = ProviderCredentials.keyPermissionWarning(configuration) {
                    ToolSupport.warn(warning, tool: "apns-jwt")
                }
                let cache = ProviderTokenCache(path: configuration.tokenCachePath)
                let lease = refresh ? try cache.refresh(for: credentials) : try cache.token(for: credentials)
                if let warning = lease.warning { ToolSupport.warn(warning, tool: "apns-jwt") }
                StandardStreams.writeOutput(lease.token.compact + "\n")
            }
        }
    }

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Print a token's header and claims as JSON, with its age. The signature is not checked."
        )

        @Argument(help: ArgumentHelp("The token; read from standard input when omitted or '-'.", valueName: "token"))
        var token: String?

        func run() throws {
            try ToolSupport.run(tool: "apns-jwt") {
                var text = token ?? "-"
                if text == "-" {
                    text = String(
                        decoding: try InputFile.read("-", named: "standard input", limit: InputFile.keyLimit),
                        as: UTF8.self)
                }
                text = String(text.filter { !$0.isWhitespace })
                guard !text.isEmpty else {
                    throw ProviderTokenFormatError("no token given (argument or standard input)")
                }
                let decoded = try DecodedProviderToken(compact: text)
                var report: [String: JSONValue] = [
                    "header": .object(decoded.header),
                    "claims": .object(decoded.claims),
                    "signature_bytes": .number(Double(decoded.signature.count)),
                ]
                if let issuedAt = decoded.issuedAt {
                    let age = Int(Date().timeIntervalSince1970) - issuedAt
                    report["age_seconds"] = .number(Double(age))
                    report["expires_in_seconds"] = .number(Double(3600 - age))
                    report["issued_at"] = .string(Date(timeIntervalSince1970: Double(issuedAt)).formatted(.iso8601))
                }
                StandardStreams.writeOutput(JSONValue.object(report).serializedString(pretty: true) + "\n")
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract:
                "Report every setting, where it came from, and what is wrong. Exit 0 when all is well, 78 otherwise."
        )

        @OptionGroup var options: SharedOptions

        @Flag(
            help:
                "Also have APNs judge the credentials: one request that delivers nothing (a background push to a device token that does not exist), which proves the host, proxy, TLS and HTTP/2, and shows whether APNs accepts the provider token and topic. With a Firebase service account, also get a new FCM access token and have FCM validate a message to a topic (validate_only: nothing is delivered)."
        )
        var online = false

        @Flag(help: "The report as one JSON object (ok, problems, warnings, and each finding).")
        var json = false

        func run() throws {
            try ToolSupport.run(tool: "apns-jwt") {
                var findings = ConfigurationDoctor.findings(
                    flags: options.flags, environment: ToolSupport.environment)
                if online {
                    let offline = findings
                    findings.append(try onlineFinding(offline: offline))
                    if let fcm = try fcmOnlineFinding(offline: offline) { findings.append(fcm) }
                }
                StandardStreams.writeOutput(json ? DoctorReport.json(findings) : DoctorReport.render(findings))
                if findings.contains(where: { $0.severity == .error }) {
                    throw ExitCode(ExitStatus.configuration.rawValue)
                }
            }
        }

        /// The probe's finding (`CredentialProbe`); not sent while the offline checks found an error
        /// other than in the FCM settings.
        private func onlineFinding(offline: [DoctorFinding]) throws -> DoctorFinding {
            let configuration = try ToolSupport.configuration(options.flags, tool: "apns-jwt")
            let environment = configuration.environment.value
            let host = configuration.baseURL(for: environment).value
            guard !offline.contains(where: { $0.severity == .error && !$0.isAboutFCM }),
                let topic = configuration.topic?.value
            else {
                return DoctorFinding(
                    setting: "apns (online)", value: host, source: "", severity: .error,
                    message: "not asked: fix the problems above first")
            }
            let credentials = try ProviderCredentials.load(from: configuration)
            let lease = try ProviderTokenCache(path: configuration.tokenCachePath).token(for: credentials)
            let outcome = try Self.probeTransport(configuration).answer(
                to: CredentialProbe.request(baseURL: host, token: lease.token, topic: topic))
            return CredentialProbe.finding(
                for: outcome, host: host, keyID: credentials.keyID, teamID: credentials.teamID, topic: topic,
                environment: environment)
        }

        /// The FCM probe's finding (`FCMCredentialProbe`), when a service account is configured; not
        /// sent while the offline checks found an error in what FCM uses (`concernsFCM`), so an
        /// Android-only setup without an APNs key can be probed. No access token is cached.
        private func fcmOnlineFinding(offline: [DoctorFinding]) throws -> DoctorFinding? {
            let configuration = try ToolSupport.configuration(options.flags, tool: "apns-jwt")
            guard let path = configuration.fcmServiceAccount else { return nil }
            let fcmURL = configuration.fcmURL.value
            guard !offline.contains(where: { $0.severity == .error && $0.concernsFCM }) else {
                return DoctorFinding(
                    setting: FCMCredentialProbe.setting, value: fcmURL, source: "", severity: .error,
                    message: "not asked: fix the problems above first")
            }
            let account = try FCMServiceAccount.load(path: path.value, source: path.source)
            let transport = try Self.probeTransport(configuration)
            return FCMCredentialProbe.finding(
                tokenRequest: try FCMCredentialProbe.tokenRequest(account: account, now: Date()),
                account: account.description, projectID: account.projectID, fcmURL: fcmURL, now: { Date() },
                perform: transport.answer(to:))
        }

        /// A libcurl client for the probes, trusting the CA file and using the proxy configured.
        private static func probeTransport(_ configuration: Configuration) throws -> any HTTP2Transport {
            let source = CurlTransportSource(keepsClient: false)
            try source.prepare()
            return source.transport(
                caFile: configuration.caFile?.value, proxy: configuration.proxy?.value,
                connectTimeout: CredentialProbe.timeout)
        }
    }
}

extension HTTP2Transport {
    /// The answer to `request` alone, or why there is none within `CredentialProbe.timeout`.
    fileprivate func answer(to request: HTTP2Request) -> Result<HTTP2Answer, TransportFailure> {
        var outcome: Result<HTTP2Answer, TransportFailure> = .failure(
            TransportFailure(kind: .timeout, code: 0, message: "no answer"))
        perform([request], deadline: .now + CredentialProbe.timeout) { outcome = $0.result }
        return outcome
    }
}

/// `apns-jwt`'s entry point: the multi-call program (Sources/pushkit-free) runs it when called by that
/// name, with `CommandLine.arguments` as the tool would see them.
package enum APNsJWTTool {
    package static func main() { APNsJWT.main() }
}
