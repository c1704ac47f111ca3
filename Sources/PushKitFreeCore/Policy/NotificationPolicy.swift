#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What quiet hours do to an alert: send it `passive` and silent (the default), hold it back
/// (`skip`), or nothing (`ignore`). `time-sensitive` and `critical` alerts are never held back.
package enum QuietPolicy: String, Sendable, CaseIterable {
    case passive, skip, ignore
}

/// The delivery policy of the config file, overridable by flags: quiet hours, a frequency cap,
/// urgency's category map, `--collapse-id auto`, and the size cap of `push.log`.
///
/// Config keys: `quiet_hours` (see `QuietHours`), `quiet_policy` (`passive`, `skip`, `ignore`),
/// `min_interval_seconds` (see `FrequencyCap`), `urgency_categories`
/// (`{"high": "URGENT", "low": "FYI"}`), `log_max_bytes` (default 1 MiB), `critical_alerts`
/// (`true` once the app has Apple's Critical Alerts entitlement; critical alerts are refused
/// without it).
package struct NotificationPolicy: Sendable {
    /// The config file's `quiet_hours`; `nil`: no quiet hours.
    package var quietHours: QuietHours?
    /// What quiet hours do to an alert (`quiet_policy`, `--quiet-policy`); `passive` by default.
    package var quietPolicy: QuietPolicy = .passive
    /// Seconds between two sends with the same cap key; `nil` or 0: no cap.
    package var minimumInterval: Int?
    /// The category an urgency adds when the notification names none.
    package var urgencyCategories: [Urgency: String] = [:]
    /// Whether critical alerts may be sent (`critical_alerts`): only an app with Apple's Critical
    /// Alerts entitlement can play them, so they are refused unless the config says it has it.
    package var criticalAlerts = false
    /// `push.log` is rotated before it would grow past this many bytes (`log_max_bytes`).
    package var logLimit = NotificationPolicy.defaultLogLimit
    /// `logLimit` when the config file sets none: 1 MiB.
    package static let defaultLogLimit = 1 << 20

    /// The config keys read here (for `ConfigurationFile.knownKeys`).
    package static let configKeys: Set<String> = [
        "quiet_hours", "quiet_policy", "min_interval_seconds", "urgency_categories", "log_max_bytes",
        "critical_alerts",
    ]

    /// The value `--collapse-id` takes to derive a stable id.
    package static let automaticCollapseID = "auto"

    /// No quiet hours, no frequency cap, no urgency categories, the default log limit.
    package init() {}

    /// Reads the policy from `configuration`'s file, its zones from `configuration`'s tz database,
    /// then lets the front end's choices override it (see the other initializer).
    package init(
        configuration: Configuration, quietPolicy: QuietPolicy? = nil, minimumInterval: Int? = nil
    ) throws(ConfigurationError) {
        try self.init(
            file: configuration.file, quietPolicy: quietPolicy, minimumInterval: minimumInterval,
            makeZone: { name throws(ConfigurationError) in
                try SystemTimeZone(identifier: name, database: configuration.timeZones)
            })
    }

    /// Reads the policy from the config file, then lets the flags override it.
    /// - Parameters:
    ///   - quietPolicy: the front end's choice, over the file's `quiet_policy`.
    ///   - minimumInterval: the front end's choice, over the file's `min_interval_seconds` (0 turns the cap off).
    ///   - makeZone: turns `quiet_hours.timezone` (nil: absent) into a zone; tools pass `SystemTimeZone.init`.
    /// - Throws: `ConfigurationError`: 78 for the file's values, 64 for a negative `minimumInterval`.
    package init(
        file: ConfigurationFile, quietPolicy: QuietPolicy?, minimumInterval: Int?,
        makeZone: (String?) throws(ConfigurationError) -> any LocalTimeZone
    ) throws(ConfigurationError) {
        let path = file.path
        if let value = file.values["quiet_hours"], value != .null {
            quietHours = try QuietHours(configValue: value, in: path, makeZone: makeZone)
        }
        if let quietPolicy {
            self.quietPolicy = quietPolicy
        } else if let value = file.values["quiet_policy"], value != .null {
            guard let text = value.stringValue, let policy = QuietPolicy(rawValue: text) else {
                throw ConfigurationError(
                    "quiet_policy in \(path) must be \"passive\", \"skip\" or \"ignore\", not \(value.serializedString())"
                )
            }
            self.quietPolicy = policy
        }
        if let minimumInterval {
            guard minimumInterval >= 0 else {
                throw ConfigurationError(
                    "the minimum interval must be 0 or more seconds, not \(minimumInterval)", exitStatus: .usage)
            }
            self.minimumInterval = minimumInterval
        } else if let value = file.values["min_interval_seconds"], value != .null {
            guard let seconds = value.integerValue, seconds >= 0 else {
                throw ConfigurationError(
                    "min_interval_seconds in \(path) must be a whole number of seconds, 0 or more, not \(value.serializedString())"
                )
            }
            self.minimumInterval = seconds
        }
        if let value = file.values["urgency_categories"], value != .null {
            guard let object = value.objectValue else {
                throw ConfigurationError(
                    "urgency_categories in \(path) must be an object like {\"high\": \"URGENT\"}, not a \(value.typeName)"
                )
            }
            for (key, category) in object {
                guard let urgency = Urgency(rawValue: key) else {
                    throw ConfigurationError(
                        "urgency_categories in \(path) has \"\(key)\"; the urgencies are \(Urgency.names)")
                }
                guard let name = category.stringValue, !name.isEmpty else {
                    throw ConfigurationError(
                        "urgency_categories.\(key) in \(path) must be a category name, not \(category.serializedString())"
                    )
                }
                urgencyCategories[urgency] = name
            }
        }
        if let value = file.values["critical_alerts"], value != .null {
            guard let allowed = value.boolValue else {
                throw ConfigurationError(
                    "critical_alerts in \(path) must be true or false, not \(value.serializedString())")
            }
            criticalAlerts = allowed
        }
        if let value = file.values["log_max_bytes"], value != .null {
            guard let bytes = value.integerValue, bytes >= 4096 else {
                throw ConfigurationError(
                    "log_max_bytes in \(path) must be a whole number of bytes, at least 4096, not \(value.serializedString())"
                )
            }
            logLimit = bytes
        }
    }

    /// Whether a frequency cap applies.
    package var capsFrequency: Bool { (minimumInterval ?? 0) > 0 }

    /// The refusal of a critical alert when `criticalAlerts` is off.
    package static let criticalAlertsRefusal = PayloadError.notAllowed(
        "critical alerts are off: the app needs Apple's Critical Alerts entitlement to play them; once it has it, set \"critical_alerts\": true in the config file"
    )

    /// What the policy decided about one notification.
    package enum Decision: Sendable, Equatable {
        /// Send it; `note` says what the policy changed, if anything.
        case send(note: String?)
        /// Do not send it, for `reason`.
        case skip(reason: String)
    }

    /// Applies urgency, `--collapse-id auto` and quiet hours to what the user asked for.
    ///
    /// - Urgency sets the interruption level (unless one was given) and, when the config maps it,
    ///   the category (unless one was given).
    /// - `--collapse-id auto` becomes the hex SHA-256 (64 digits, APNs' limit) of the thread id,
    ///   else of the groups sent to, else of the topic: every send to the same conversation or
    ///   audience replaces the previous banner.
    /// - During quiet hours an alert that is not `time-sensitive` or `critical` is sent `passive`
    ///   without sound, or skipped, as `quietPolicy` says. A complete payload (`--payload-file`) is
    ///   never rewritten: quiet hours can only skip it.
    /// - Parameters:
    ///   - groups: the `--group`s sent to.
    ///   - topic: the configured topic, the last resort of `--collapse-id auto`.
    package func apply(
        to spec: inout PushSpecification, urgency: Urgency?, groups: [String], topic: String?, at now: Date
    ) -> Decision {
        apply(
            to: &spec, urgency: urgency, groups: groups, topic: topic, inQuietHours: quietHours?.contains(now) ?? false)
    }

    /// `apply(to:urgency:groups:topic:at:)` for a send that is, or is not, inside quiet hours: with
    /// quiet hours in each device's zone, a send is prepared both ways and each device gets the one
    /// its own clock calls for.
    package func apply(
        to spec: inout PushSpecification, urgency: Urgency?, groups: [String], topic: String?, inQuietHours: Bool
    ) -> Decision {
        if let urgency {
            if spec.content.interruptionLevel == nil { spec.content.interruptionLevel = urgency.interruptionLevel }
            if spec.content.category == nil, let category = urgencyCategories[urgency] {
                spec.content.category = category
            }
        }
        if spec.collapseID == Self.automaticCollapseID {
            let source =
                spec.content.threadID.map { "thread:" + $0 }
                ?? (groups.isEmpty ? nil : "groups:" + groups.sorted().joined(separator: ","))
                ?? "topic:" + (topic ?? "")
            spec.collapseID = Self.derivedCollapseID(source)
        }
        guard let quietHours, quietPolicy != .ignore, spec.pushType == .alert, inQuietHours
        else { return .send(note: nil) }
        let level =
            spec.payloadFile.flatMap { try? JSONValue.parse($0) }?["aps"]?["interruption-level"]?.stringValue
            .flatMap(InterruptionLevel.init(rawValue:)) ?? spec.content.interruptionLevel
        if level?.breaksThroughQuietHours == true { return .send(note: nil) }
        let reason = "quiet hours \(quietHours.description)"
        if quietPolicy == .skip { return .skip(reason: reason) }
        guard spec.payloadFile == nil else { return .send(note: nil) }
        spec.content.interruptionLevel = .passive
        spec.sound = "none"
        return .send(note: "\(reason): sent passive, without sound")
    }

    /// Why the policy holds a send back, if it does: quiet hours with `skip`, or the frequency cap
    /// for `capKey` (which records the send when it lets it through).
    /// - Throws: `FrequencyCap`'s errors when its state file cannot be read or written.
    /// A push that `overridesCap` (a critical alert, a withdrawal) is never held back by the cap,
    /// nor counted by it.
    package func holdBackReason(
        _ decision: Decision, capKey: String, stateDirectory: String, overridesCap: Bool = false
    ) throws -> String? {
        if case .skip(let reason) = decision { return reason }
        guard capsFrequency, !overridesCap, let interval = minimumInterval else { return nil }
        let cap = FrequencyCap(stateDirectory: stateDirectory, interval: interval)
        guard case .tooSoon(let secondsAgo) = try cap.admit(key: capKey) else { return nil }
        return "frequency cap: the last send to \(capKey) was \(secondsAgo) s ago (minimum interval \(interval) s)"
    }

    /// The first 64 hex digits of SHA-256 of `source` (SHA-256 has exactly 64).
    package static func derivedCollapseID(_ source: String) -> String {
        HexDigest.sha256(source)
    }

    /// The key the frequency cap counts sends under: the collapse id, else the audience
    /// (groups, devices, tokens, or every device).
    package static func capKey(collapseID: String?, groups: [String], deviceIDs: [String], tokens: [String]) -> String {
        if let collapseID { return "collapse:" + collapseID }
        if !groups.isEmpty { return "groups:" + groups.sorted().joined(separator: ",") }
        if !deviceIDs.isEmpty { return "devices:" + deviceIDs.sorted().joined(separator: ",") }
        if !tokens.isEmpty {
            return "tokens:" + derivedCollapseID(tokens.map { $0.lowercased() }.sorted().joined(separator: ","))
        }
        return "all"
    }
}
