#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// One line of `apns-jwt check`: a setting, its value and source, and what is wrong with it.
package struct DoctorFinding: Sendable, Equatable {
    /// How the finding is marked; any `error` makes `apns-jwt check` exit 78.
    package enum Severity: String, Sendable { case ok, warning, error }

    /// What was checked, as the report names it: `topic`, `ca file`, `clock`.
    package let setting: String
    /// The value, URLs without credentials; `(none)` when the setting has none.
    package let value: String
    /// `flag`, `env`, `file`, `default`, `apns` (what APNs answered earlier sends, see
    /// `KeyScopeNotes`), or "" for checks that are not settings (the clock).
    package let source: String
    /// `ok`, `warning` or `error`.
    package let severity: Severity
    /// What is wrong and how to fix it; empty when all is well.
    package let message: String

    /// A finding of `setting` with `value` from `source`, marked `severity`, saying `message`.
    package init(setting: String, value: String, source: String, severity: Severity, message: String) {
        self.setting = setting
        self.value = value
        self.source = source
        self.severity = severity
        self.message = message
    }
}

extension DoctorFinding {
    /// Whether the finding is about FCM alone (`fcm account`, `fcm url`, …): a problem there does
    /// not keep the APNs probe of `--online` from being sent.
    package var isAboutFCM: Bool { setting.hasPrefix("fcm ") }

    /// Whether a problem on this line keeps the FCM probe of `--online` from being sent: FCM's own
    /// lines, and those FCM shares with APNs (the config file, the CA file, the proxy, the clock).
    package var concernsFCM: Bool {
        isAboutFCM || ["config file", "settings", "ca file", "proxy", "clock"].contains(setting)
    }
}

/// Examines a resolved configuration the way `apns-jwt check` reports it: every setting, where it
/// came from, and problems in words a user can act on.
package struct ConfigurationDoctor: Sendable {
    /// Before this time the clock is obviously wrong (the tool was written later).
    package static let earliestPlausibleTime = 1_767_225_600 // 2026-01-01T00:00:00Z
    /// After this time the clock is obviously wrong.
    package static let latestPlausibleTime = 4_102_444_800 // 2100-01-01T00:00:00Z

    /// The settings examined.
    package let configuration: Configuration
    /// The clock checked against the plausible range and the key file's modification time.
    package let clock: any WallClock

    /// A doctor for `configuration`, reading the time from `clock`.
    package init(configuration: Configuration, clock: any WallClock = SystemClock()) {
        self.configuration = configuration
        self.clock = clock
    }

    /// The findings for the settings `flags` and `environment` resolve to, in report order.
    ///
    /// A config file that is missing (when named), unreadable, not JSON or holding a bad value is
    /// itself a finding: the rest is reported as if there were no file, so one problem does not hide
    /// the others. When the flags or environment cannot be resolved either, that is the one finding.
    package static func findings(
        flags: ConfigurationFlags, environment: [String: String],
        clock: any WallClock = SystemClock()
    ) -> [DoctorFinding] {
        let location = Configuration.configFileLocation(flags: flags, environment: environment)
        let fileProblem: ConfigurationError
        do {
            let configuration = try Configuration.resolve(
                flags: flags, environment: environment, stateFileBesideConfig: SvenFiles.stateFile(besideConfig:))
            return ConfigurationDoctor(configuration: configuration, clock: clock).findings()
        } catch {
            fileProblem = error
        }
        let problem = DoctorFinding(
            setting: "config file", value: location.value, source: location.source.kind,
            severity: .error, message: fileProblem.message)
        let withoutFile = ConfigurationFile(path: location.value, exists: false, values: [:])
        do {
            let configuration = try Configuration(
                flags: flags, environment: environment, file: withoutFile,
                fileSource: location.source, stateFileBesideConfig: SvenFiles.stateFile(besideConfig:))
            return [problem] + ConfigurationDoctor(configuration: configuration, clock: clock).findings().dropFirst()
        } catch {
            // Not the file: a flag or an environment variable (the message names it).
            return [DoctorFinding(setting: "settings", value: "", source: "", severity: .error, message: error.message)]
        }
    }

    /// All findings, in report order.
    package func findings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let c = configuration
        findings.append(
            DoctorFinding(
                setting: "config file", value: c.file.path, source: c.fileSource.kind, severity: .ok,
                message: !c.file.exists
                    ? "not found; using flags, environment and defaults"
                    : c.fileSource.isDerived ? "\(c.fileSource)" : ""))
        for warning in c.warnings {
            findings.append(
                DoctorFinding(
                    setting: "config file", value: c.file.path, source: "file", severity: .warning, message: warning))
        }
        findings.append(keyFinding())
        findings.append(keyIDFinding())
        findings.append(identifierFinding(c.teamID, name: "team id", hint: "set --team-id, APNS_TEAM_ID or team_id"))
        if let topic = c.topic {
            let bad = topic.value.contains(where: { $0 == " " || $0 == "/" })
            findings.append(
                DoctorFinding(
                    setting: "topic", value: topic.value, source: topic.source.kind,
                    severity: bad ? .error : .ok,
                    message: bad ? "a bundle id has no spaces or slashes" : ""))
        } else {
            findings.append(
                DoctorFinding(
                    setting: "topic", value: "(none)", source: "", severity: .error,
                    message: ConfigurationError.noTopic.message))
        }
        findings.append(
            DoctorFinding(
                setting: "environment", value: c.environment.value.rawValue, source: c.environment.source.kind,
                severity: .ok, message: ""))
        if c.file.values["profile"] != nil { findings.append(profileFinding()) }
        if c.file.values["encrypt"] != nil { findings.append(encryptionFinding()) }
        if let value = c.file.values["critical_alerts"] { findings.append(criticalAlertsFinding(value)) }
        let url = c.baseURL(for: c.environment.value)
        findings.append(urlFinding(url, name: "apns url"))
        findings.append(urlFinding(c.managementURL(for: c.environment.value), name: "manage url"))
        findings += keyScopeFindings()
        findings += fcmFindings()
        findings += endpointFindings()
        if let caFile = c.caFile {
            let problem = CertificateAuthorityFile.problem(caFile)
            findings.append(
                DoctorFinding(
                    setting: "ca file", value: caFile.value, source: caFile.source.kind,
                    severity: problem == nil ? .ok : .error,
                    message: problem?.message ?? (usesFCM ? "trusted for FCM and its token endpoint too" : "")))
        }
        let proxy = proxyFinding(for: url.value)
        findings.append(proxy)
        if usesFCM {
            let fcmProxy = proxyFinding(for: c.fcmURL.value, name: "fcm proxy")
            if fcmProxy.value != proxy.value || fcmProxy.message != proxy.message { findings.append(fcmProxy) }
        }
        findings.append(directoryFinding(c.stateDirectory, name: "state dir"))
        let devicesDirectory = PosixFile.parentDirectory(of: c.stateFile.value)
        if PostgresURL.isDatabaseURL(c.stateFile.value) {
            findings.append(databaseFinding(c.stateFile))
        } else if !devicesDirectory.isEmpty, devicesDirectory != c.stateDirectory.value {
            findings.append(directoryFinding(Setting(devicesDirectory, from: c.stateFile.source), name: "devices dir"))
        }
        if !PostgresURL.isDatabaseURL(c.stateFile.value) { findings.append(devicesFileFinding(c.stateFile)) }
        findings.append(clockFinding())
        return findings
    }

    /// The config file's notification profile (`PayloadProfile.configured`): what it fills in.
    private func profileFinding() -> DoctorFinding {
        let file = configuration.file
        do {
            guard let profile = try PayloadProfile.configured(in: file) else {
                return DoctorFinding(setting: "profile", value: "(none)", source: "file", severity: .ok, message: "")
            }
            let name = file.values["profile"]?.stringValue ?? "declared in the config file"
            var parts: [String] = []
            if let category = profile.category { parts.append("category \(category)") }
            if let thread = profile.threadID { parts.append("thread-id \(thread)") }
            if profile.mutableContent { parts.append("mutable-content") }
            if let expiration = profile.expiration { parts.append("apns-expiration \(expiration)") }
            if let key = profile.dataKey { parts.append("data under \(key)") }
            return DoctorFinding(
                setting: "profile", value: name, source: "file", severity: .ok, message: parts.joined(separator: ", "))
        } catch {
            return DoctorFinding(
                setting: "profile", value: "", source: "file", severity: .error, message: error.message)
        }
    }

    /// The config file's `encrypt` (`EncryptionDefaults`): whether alerts go out encrypted unless a
    /// send says, and the placeholder they show in clear.
    private func encryptionFinding() -> DoctorFinding {
        let defaults = configuration.encryption
        let placeholder = [defaults.placeholderTitle, defaults.placeholderBody].compactMap { $0 }
            .map { "\"\(TerminalText.escaped($0))\"" }.joined(separator: " / ")
        return DoctorFinding(
            setting: "encrypt", value: defaults.encrypt ? "true" : "false", source: "file", severity: .ok,
            message: defaults.encrypt
                ? "alerts are sealed with each device's content key; in clear only the placeholder \(placeholder)" : "")
    }

    /// The config file's `critical_alerts`: whether critical alerts may be sent, which only an app
    /// with Apple's Critical Alerts entitlement can play.
    private func criticalAlertsFinding(_ value: JSONValue) -> DoctorFinding {
        guard let allowed = value.boolValue else {
            return DoctorFinding(
                setting: "critical alerts", value: value.serializedString(), source: "file", severity: .error,
                message: "critical_alerts must be true or false")
        }
        return DoctorFinding(
            setting: "critical alerts", value: allowed ? "true" : "false", source: "file", severity: .ok,
            message: allowed
                ? "critical alerts may be sent: the app must have Apple's Critical Alerts entitlement"
                : "critical alerts are refused")
    }

    /// A URL the tools send a credential to (`credential`: the provider token to APNs), shown
    /// without credentials: plain `http://` is only for a server on this machine (the emulator); to
    /// any other host it would carry the credential in clear.
    private func urlFinding(
        _ setting: Setting<String>, name: String, credential: String = "the provider token"
    ) -> DoctorFinding {
        let shown = ProxyAddress.masked(setting.value)
        func finding(_ severity: DoctorFinding.Severity, _ message: String) -> DoctorFinding {
            DoctorFinding(
                setting: name, value: shown, source: setting.source.kind, severity: severity, message: message)
        }
        guard ProxyAddress.scheme(of: setting.value) == "http" else { return finding(.ok, "") }
        let host = ProxyResolution.host(of: setting.value).lowercased()
        if host == "localhost" || host.hasPrefix("127.") || host == "[::1]" { return finding(.ok, "") }
        return finding(
            .error,
            "plain http to \(host) would send \(credential) unencrypted; use https (http:// is for an "
                + "emulator on this machine)")
    }

    /// A directory the tools write to (the token cache, push.log, the devices file): it must be a
    /// writable directory, or be creatable in the nearest directory that exists.
    private func directoryFinding(_ setting: Setting<String>, name: String) -> DoctorFinding {
        let path = setting.value
        func finding(_ severity: DoctorFinding.Severity, _ message: String) -> DoctorFinding {
            DoctorFinding(setting: name, value: path, source: setting.source.kind, severity: severity, message: message)
        }
        switch PosixFile.entry(at: path) {
        case .directory:
            if let problem = PosixFile.unsafeDirectoryProblem(path) { return finding(.error, problem) }
            return PosixFile.isWritableDirectory(path)
                ? finding(.ok, "")
                : finding(.error, "cannot write in \(path) (from \(setting.source)): read-only or not this user's")
        case .other:
            return finding(.error, "\(path) (from \(setting.source)) is a file, not a directory")
        case .missing:
            var ancestor = PosixFile.parentDirectory(of: path)
            while !ancestor.isEmpty, PosixFile.entry(at: ancestor) == .missing {
                ancestor = PosixFile.parentDirectory(of: ancestor)
            }
            if ancestor.isEmpty { ancestor = "." }
            guard PosixFile.entry(at: ancestor) == .directory else {
                return finding(.error, "cannot be created: \(ancestor) is a file, not a directory")
            }
            return PosixFile.isWritableDirectory(ancestor)
                ? finding(.ok, "not created yet; the first write creates it")
                : finding(.error, "cannot be created: \(ancestor) is read-only or not this user's")
        }
    }

    /// A PostgreSQL registry: reachable, its schema current (created when missing), how many devices.
    private func databaseFinding(_ setting: Setting<String>) -> DoctorFinding {
        let registry = PostgresRegistry(url: setting.value, retry: configuration.registryTuning.databaseRetry)
        func finding(_ severity: DoctorFinding.Severity, _ message: String) -> DoctorFinding {
            DoctorFinding(
                setting: "registry", value: registry.location, source: setting.source.kind, severity: severity,
                message: message)
        }
        do {
            let devices = try registry.load()
            let tls = try registry.usesTLS() ? "TLS" : "no TLS"
            let summary = "PostgreSQL (\(tls)), \(devices.count) device\(devices.count == 1 ? "" : "s")"
            if let problems = Self.recordProblems(devices) { return finding(.warning, summary + "; " + problems) }
            return finding(.ok, summary)
        } catch {
            return finding(.error, error.description)
        }
    }

    /// What is wrong with some records of a registry that reads: those that cannot be used (a field
    /// edited by hand; every other device works), and names that are both a device id and a group
    /// (ntfy and Bark refuse them). `nil` when nothing is.
    static func recordProblems(_ devices: RegisteredDevices) -> String? {
        var problems = devices.unreadableDevices.map { device in
            "device \"\(device.id)\" cannot be used: \(device.problem) (fix the record, or register-apns remove it)"
        }
        problems += devices.ambiguousNames.map { name in
            "\"\(name)\" is both a device id and a group: ntfy and Bark refuse it until one is renamed"
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// The devices file: absent (nothing registered yet), or a file every tool can read and parse.
    private func devicesFileFinding(_ setting: Setting<String>) -> DoctorFinding {
        let path = setting.value
        func finding(_ severity: DoctorFinding.Severity, _ message: String) -> DoctorFinding {
            DoctorFinding(
                setting: "devices file", value: path, source: setting.source.kind, severity: severity, message: message)
        }
        if PosixFile.entry(at: path) == .directory {
            return finding(.error, "\(path) (from \(setting.source)) is a directory, not the devices file")
        }
        do {
            let devices = try StateFileRegistry(path: path).load()
            let sven = SvenFiles.tokenMap(home: configuration.homeDirectory)
            if devices.devices.isEmpty, sven != path, PosixFile.entry(at: sven) == .other {
                // The Sven design's config copied without state_file: every push would go nowhere.
                return finding(
                    .warning,
                    "no devices here, but the Sven server keeps its phones in \(sven): set state_file to it "
                        + "(or run register-apns import \(sven)), or send-push has no one to send to")
            }
            guard PosixFile.entry(at: path) != .missing else {
                return finding(.ok, "no devices registered yet (register-apns creates it)")
            }
            var count = "\(devices.count) device\(devices.count == 1 ? "" : "s")"
            if case .derived(let rule) = setting.source { count += " (\(rule))" }
            if let problems = Self.recordProblems(devices) { return finding(.warning, count + "; " + problems) }
            if let mode = PosixFile.permissionsOpenToOthers(of: path) {
                return finding(
                    .warning,
                    "\(count); readable by other users (mode \(String(mode, radix: 8))): the tokens and names are "
                        + "private; chmod 600 \(path) (the tools keep a file's mode when they replace it)")
            }
            return finding(.ok, count)
        } catch {
            return finding(.error, error.description)
        }
    }

    /// Whether any FCM setting is present (a service account, or `fcm_url`): only then does the
    /// report say anything about FCM.
    private var usesFCM: Bool {
        configuration.fcmServiceAccount != nil || configuration.fcmURL.source != .defaultValue
    }

    /// The FCM settings, when any is present: the service account file, the token endpoint it names
    /// and the send API's URL, the two URLs held to the rule of the APNs URLs.
    private func fcmFindings() -> [DoctorFinding] {
        guard usesFCM else { return [] }
        let url = configuration.fcmURL
        var findings: [DoctorFinding] = []
        if let path = configuration.fcmServiceAccount {
            findings += serviceAccountFindings(path)
        } else {
            findings.append(
                DoctorFinding(
                    setting: "fcm account", value: "(none)", source: "", severity: .warning,
                    message: "\(url.source) is set, but no service account: nothing can be sent to FCM devices; set "
                        + "FCM_SERVICE_ACCOUNT or fcm_service_account to the JSON from the Firebase console"))
        }
        findings.append(urlFinding(url, name: "fcm url", credential: "the access token"))
        return findings
    }

    /// The service account file (`FCMServiceAccount.load`: a regular file, JSON, its fields, an RSA
    /// key of 2048 bits or more), its permissions, and the token endpoint it names.
    private func serviceAccountFindings(_ path: Setting<String>) -> [DoctorFinding] {
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount.load(path: path.value, source: path.source)
        } catch {
            return [
                DoctorFinding(
                    setting: "fcm account", value: path.value, source: path.source.kind, severity: .error,
                    message: error.message)
            ]
        }
        let warning = FCMServiceAccount.permissionWarning(path: path.value)
        let summary =
            "project \(account.projectID), \(account.clientEmail), RSA \(account.keySizeInBits)-bit key"
        let tokenURI = Setting(account.tokenURI, from: .derived(rule: "token_uri in \(path.value)"))
        return [
            DoctorFinding(
                setting: "fcm account", value: path.value, source: path.source.kind,
                severity: warning == nil ? .ok : .warning, message: warning ?? summary),
            urlFinding(tokenURI, name: "fcm token uri", credential: "the signed assertion"),
        ]
    }

    private func keyFinding() -> DoctorFinding {
        guard let keyPath = configuration.keyPath else {
            return DoctorFinding(
                setting: "key file", value: "(none)", source: "", severity: .error,
                message: "no key file: set --key-path, APNS_KEY_PATH or key_path to the .p8 from the developer account")
        }
        let source = keyPath.source.kind
        do {
            let key = try ProviderKey.load(path: keyPath.value, source: keyPath.source)
            if let mode = PosixFile.permissionsOpenToOthers(of: keyPath.value) {
                return DoctorFinding(
                    setting: "key file", value: keyPath.value, source: source, severity: .warning,
                    message:
                        "permissions \(String(mode, radix: 8)) let other users read the key; run chmod 600 \(keyPath.value)"
                )
            }
            return DoctorFinding(
                setting: "key file", value: keyPath.value, source: source, severity: .ok,
                message: "P-256 key, fingerprint \(key.fingerprint)")
        } catch {
            return DoctorFinding(
                setting: "key file", value: keyPath.value, source: source, severity: .error, message: error.message)
        }
    }

    /// What APNs said about the configured key's scope in earlier sends (`KeyScopeNotes`), as it
    /// bears on the configured environment and topic: one finding per refusal, none when APNs
    /// refused nothing (or the key id is not configured).
    private func keyScopeFindings() -> [DoctorFinding] {
        guard let keyID = configuration.keyID?.value else { return [] }
        let environment = configuration.environment.value
        let topic = configuration.topic?.value
        let refusals = KeyScopeNotes(stateDirectory: configuration.stateDirectory.value).refusals(of: keyID)
        return refusals.compactMap { (refusal) -> DoctorFinding? in
            switch refusal.scope {
            case .environment(let refused):
                let said =
                    "APNs answered BadEnvironmentKeyIdInToken in \(refused.rawValue) (\(refusal.at)): "
                    + "the key is limited to \(refused.other.rawValue)"
                if refused == environment {
                    return DoctorFinding(
                        setting: "key scope", value: keyID, source: "apns", severity: .error,
                        message: said + "; use a key for \(refused.rawValue) (key_id and key_path) "
                            + "or the \(refused.other.rawValue) environment (--environment \(refused.other.rawValue))")
                }
                return DoctorFinding(
                    setting: "key scope", value: keyID, source: "apns", severity: .warning,
                    message: said + "; devices registered for \(refused.rawValue) need another key")
            case .topic(let refused) where refused == topic:
                return DoctorFinding(
                    setting: "key scope", value: keyID, source: "apns", severity: .error,
                    message: "APNs answered TopicDisallowed for \(refused) (\(refusal.at)): the key is not scoped "
                        + "to this bundle id; use a topic-specific key that lists it, or a team-scoped key")
            case .topic:
                return nil
            }
        }
    }

    /// Which proxy libcurl will use for `url` (the APNs URL, or FCM's on the line `name`) and where
    /// it comes from.
    private func proxyFinding(for url: String, name: String = "proxy") -> DoctorFinding {
        let resolution = configuration.proxyResolution(for: url)
        if let exemption = resolution.exemption {
            let host = ProxyResolution.host(of: url)
            var message = "\(exemption.variable) exempts \(host) (entry \(exemption.entry)): connecting directly"
            if let bypassed = exemption.bypassed {
                message += "; the proxy \(ProxyAddress.masked(bypassed.value)) from \(bypassed.source) is not used"
            }
            return DoctorFinding(setting: name, value: "(none)", source: "env", severity: .ok, message: message)
        }
        guard let proxy = resolution.proxy else {
            return DoctorFinding(
                setting: name, value: "(none)", source: "", severity: .ok,
                message: "connecting directly: no --proxy, proxy key or proxy environment variable")
        }
        let shown = ProxyAddress.masked(proxy.value)
        switch ProxyAddress.scheme(of: proxy.value) {
        case .none:
            return DoctorFinding(
                setting: name, value: shown, source: proxy.source.kind, severity: .ok,
                message: "from \(proxy.source) (no scheme: libcurl uses http://)")
        case .some(let scheme) where !ProxyAddress.schemes.contains(scheme):
            return DoctorFinding(
                setting: name, value: shown, source: proxy.source.kind, severity: .error,
                message: "\(proxy.source) has a scheme libcurl cannot use; use \(ProxyAddress.schemeList)")
        default:
            return DoctorFinding(
                setting: name, value: shown, source: proxy.source.kind, severity: .ok,
                message: "from \(proxy.source)")
        }
    }

    /// The key id, checked as an identifier and against the key file's name: Apple names the file
    /// it hands out `AuthKey_<key id>.p8`, so another key id beside that name is most likely a
    /// mix-up (APNs then answers 403 InvalidProviderToken). A warning, not an error: a file may have
    /// been renamed.
    private func keyIDFinding() -> DoctorFinding {
        let finding = identifierFinding(
            configuration.keyID, name: "key id", hint: "set --key-id, APNS_KEY_ID or key_id")
        guard finding.severity == .ok, let keyID = configuration.keyID,
            let named = configuration.keyPath.flatMap({ Self.keyIDInFileName($0.value) }), named != keyID.value
        else { return finding }
        return DoctorFinding(
            setting: "key id", value: keyID.value, source: keyID.source.kind, severity: .warning,
            message:
                "the key file is named for key id \(named) (\(PosixFile.fileName(of: configuration.keyPath?.value ?? ""))); "
                + "APNs refuses a token whose key id is not the key's own (403 InvalidProviderToken): "
                + "set the key id to \(named), or name the right .p8")
    }

    /// The key id in a key file name as Apple hands it out, `AuthKey_<10 characters>.p8`.
    static func keyIDInFileName(_ path: String) -> String? {
        let name = PosixFile.fileName(of: path)
        guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
        let id = name.dropFirst("AuthKey_".count).dropLast(".p8".count)
        guard id.count == 10, id.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { return nil }
        return String(id)
    }

    private func identifierFinding(_ setting: Setting<String>?, name: String, hint: String) -> DoctorFinding {
        guard let setting else {
            return DoctorFinding(
                setting: name, value: "(none)", source: "", severity: .error, message: "no \(name): \(hint)")
        }
        let problem = ProviderCredentials.identifierProblem(setting.value, name: name)
        return DoctorFinding(
            setting: name, value: setting.value, source: setting.source.kind,
            severity: problem == nil ? .ok : .error, message: problem ?? "")
    }

    private func clockFinding() -> DoctorFinding {
        let now = Int(clock.now().timeIntervalSince1970)
        let shown = clock.now().formatted(.iso8601)
        if now < Self.earliestPlausibleTime || now > Self.latestPlausibleTime {
            return DoctorFinding(
                setting: "clock", value: shown, source: "", severity: .error,
                message:
                    "the system clock is obviously wrong; APNs rejects tokens whose iat is off by more than an hour (check NTP)"
            )
        }
        if let keyPath = configuration.keyPath?.value, let modified = PosixFile.modificationTime(of: keyPath),
            modified > now + 86_400
        {
            return DoctorFinding(
                setting: "clock", value: shown, source: "", severity: .error,
                message: "the key file was modified in the future; the system clock is behind (check NTP)")
        }
        return DoctorFinding(setting: "clock", value: shown, source: "", severity: .ok, message: "")
    }
}
