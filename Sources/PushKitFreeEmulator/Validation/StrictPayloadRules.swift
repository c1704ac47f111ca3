import PushKitFreeCore

/// The payload rules `--strict-payload` (`APNsRequestValidator.Trust.strictPayload`) adds to a
/// device push: what Apple's documentation asks of a payload but APNs does not check when it
/// accepts one (the device drops or mangles the notification instead).
///
/// 1. critical sound: `aps.sound` is a string or an object; as an object its keys are only
///    `critical` (the integer 0 or 1), `name` (a non-empty string, required) and `volume` (a
///    number from 0 to 1); `aps.interruption-level`, when present, is `passive`, `active`,
///    `time-sensitive` or `critical`; a critical sound (`critical: 1`) or level is an alert push
///    with `aps.alert`;
/// 2. background push: `aps.content-available` is 1 and `aps` has no `alert`, `badge` or `sound`;
/// 3. image: a top-level `image_url` (this project's member for the picture the app's notification
///    service extension attaches) is an `https://` URL, with `aps.mutable-content: 1` and
///    `aps.alert`.
///
/// Each rule's problem names the member and the rule, e.g. "aps.sound.volume must be a number from
/// 0 to 1, not 1.5 (--strict-payload)".
package enum StrictPayloadRules {
    /// The keys a critical sound dictionary may have.
    package static let soundKeys: Set<String> = ["critical", "name", "volume"]
    /// The values `aps.interruption-level` may take.
    package static let interruptionLevels = InterruptionLevel.allCases.map(\.rawValue)
    /// The member beside `aps` that carries an image's URL.
    package static let imageKey = PushSpecification.imageKey

    /// The first rule `payload` (the whole JSON object of a device push) breaks for `pushType`, in
    /// words that name the member; `nil` when it keeps them all.
    package static func problem(in payload: JSONValue, pushType: APNsPushType) -> String? {
        let aps = payload["aps"]?.objectValue ?? [:]
        let problem =
            soundProblem(aps: aps, pushType: pushType)
            ?? (pushType == .background ? backgroundProblem(aps: aps) : nil)
            ?? payload[imageKey].flatMap { imageProblem(url: $0, aps: aps) }
        return problem.map { "\($0) (--strict-payload)" }
    }

    /// Rule 1: the sound, the interruption level, and where a critical alert may go.
    private static func soundProblem(aps: [String: JSONValue], pushType: APNsPushType) -> String? {
        var critical = false
        switch aps["sound"] {
        case nil, .string?:
            break
        case .object(let sound)?:
            if let unknown = sound.keys.filter({ !soundKeys.contains($0) }).sorted().first {
                return "aps.sound may hold only critical, name and volume, not \"\(unknown)\""
            }
            if let flag = sound["critical"] {
                guard let value = flag.integerValue, value == 0 || value == 1 else {
                    return "aps.sound.critical must be the integer 0 or 1, not \(shown(flag))"
                }
                critical = value == 1
            }
            guard let name = sound["name"] else {
                return "aps.sound must have a name, the sound file to play (\"default\" for the system's)"
            }
            guard let text = name.stringValue, !text.isEmpty else {
                return "aps.sound.name must be a non-empty string, not \(shown(name))"
            }
            if let volume = sound["volume"] {
                guard let level = volume.numberValue, level >= 0, level <= 1 else {
                    return "aps.sound.volume must be a number from 0 to 1, not \(shown(volume))"
                }
            }
        case let other?:
            return
                "aps.sound must be a string (a sound file's name) or an object (a critical sound), not \(shown(other))"
        }
        if let level = aps["interruption-level"] {
            guard let text = level.stringValue, interruptionLevels.contains(text) else {
                return
                    "aps.interruption-level must be one of \(interruptionLevels.joined(separator: ", ")), not \(shown(level))"
            }
            if text == InterruptionLevel.critical.rawValue { critical = true }
        }
        guard critical else { return nil }
        let what = "a critical alert (aps.sound.critical 1 or aps.interruption-level critical)"
        if pushType != .alert {
            return "\(what) must be an alert push, not \(pushType.rawValue)"
        }
        if !hasAlert(aps) {
            return "\(what) must have aps.alert"
        }
        return nil
    }

    /// Rule 2: a background push's `aps` holds `content-available: 1` and nothing a user would see
    /// or hear.
    private static func backgroundProblem(aps: [String: JSONValue]) -> String? {
        guard let flag = aps["content-available"] else {
            return "a background push must have aps.content-available 1"
        }
        guard flag.integerValue == 1 else {
            return "a background push's aps.content-available must be 1, not \(shown(flag))"
        }
        if let member = ["alert", "badge", "sound"].first(where: { aps[$0] != nil }) {
            return "a background push's aps may not have \(member) (only content-available); send an alert push instead"
        }
        return nil
    }

    /// Rule 3: an image is an https URL on an alert whose notification service extension runs.
    private static func imageProblem(url: JSONValue, aps: [String: JSONValue]) -> String? {
        guard let text = url.stringValue, text.lowercased().hasPrefix("https://") else {
            return "\(imageKey) must be a string starting with https://, not \(shown(url))"
        }
        guard aps["mutable-content"]?.integerValue == 1 else {
            return
                "a payload with \(imageKey) must have aps.mutable-content 1, or the notification service extension that attaches the image never runs"
        }
        if !hasAlert(aps) {
            return "a payload with \(imageKey) must have aps.alert: the image is attached to the notification shown"
        }
        return nil
    }

    /// Whether `aps` has an alert: `aps.alert` present and not null.
    private static func hasAlert(_ aps: [String: JSONValue]) -> Bool {
        switch aps["alert"] {
        case nil, .null?: false
        default: true
        }
    }

    /// A value as JSON for a problem's words, cut after 60 characters.
    private static func shown(_ value: JSONValue) -> String {
        let text = value.serializedString()
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
