/// An app's notification conventions, declared once: what every notification to it carries unless
/// the send says otherwise (title, category, thread id, sound, `mutable-content`, expiration), and
/// the key its custom data goes under (`nil`: beside `aps`).
///
/// The designs this project replaces each have one, built in (`named`); each of their route
/// families sends with its design's profile, so the app reads what its own server sent.
package struct PayloadProfile: Sendable, Equatable {
    /// How configurations and messages name it.
    package var name: String
    /// The title when the send gives none.
    package var title: String?
    /// The category when the send gives none.
    package var category: String?
    /// The thread id when the send gives none.
    package var threadID: String?
    /// The sound when the send gives none.
    package var sound: String?
    /// Whether `mutable-content: 1` is set.
    package var mutableContent = false
    /// The `apns-expiration` header when the send gives none.
    package var expiration: Int?
    /// The key custom data goes under, as one object; `nil` puts its members beside `aps`.
    package var dataKey: String?
    /// The custom data when the send gives none.
    package var defaultData: [String: JSONValue]?

    /// A profile named `name`; every default is unset unless given.
    package init(
        name: String, title: String? = nil, category: String? = nil, threadID: String? = nil, sound: String? = nil,
        mutableContent: Bool = false, expiration: Int? = nil, dataKey: String? = nil,
        defaultData: [String: JSONValue]? = nil
    ) {
        self.name = name
        self.title = title
        self.category = category
        self.threadID = threadID
        self.sound = sound
        self.mutableContent = mutableContent
        self.expiration = expiration
        self.dataKey = dataKey
        self.defaultData = defaultData
    }

    /// The OpenClaw notification service's APNs client (seed 000): category `OPENCLAW_MESSAGE`,
    /// `sound: "default"`, `mutable-content: 1`, `thread-id: "openclaw"`, `apns-expiration: 0`,
    /// and the request's data under `openclaw`, which the app's notification delegate reads.
    package static let openClaw = PayloadProfile(
        name: "openclaw", category: "OPENCLAW_MESSAGE", threadID: "openclaw", sound: "default",
        mutableContent: true, expiration: 0, dataKey: "openclaw")

    /// The OpenClaw gateway extension's notifier (seed 001): as `openClaw`, without the expiration
    /// header, with the title `OpenClaw` and the data `{"type": "start_conversation"}` when the
    /// hook's body gives none.
    package static let openClawGateway = PayloadProfile(
        name: "openclaw-gateway", title: "OpenClaw", category: "OPENCLAW_MESSAGE", threadID: "openclaw",
        sound: "default", mutableContent: true, dataKey: "openclaw", defaultData: ["type": "start_conversation"])

    /// `spec` with what this profile declares wherever `spec` leaves it unset, and its custom data
    /// put under `dataKey` when it is built (`PushSpecification.dataEnvelope`). Only alerts built from parts take a profile: a background push or a
    /// Live Activity update carries no alert, and a complete payload file is sent as written.
    package func apply(to spec: inout PushSpecification) {
        guard spec.pushType == .alert, spec.payloadFile == nil, spec.content.liveActivity == nil else { return }
        if spec.content.title == nil, spec.legacy == nil { spec.content.title = title }
        if spec.content.category == nil { spec.content.category = category }
        if spec.content.threadID == nil { spec.content.threadID = threadID }
        if spec.sound == nil { spec.sound = sound }
        if mutableContent { spec.content.mutableContent = true }
        if spec.expiration == nil { spec.expiration = expiration }
        if spec.content.customData.isEmpty, spec.data.isEmpty, let defaultData { spec.content.customData = defaultData }
        if spec.dataEnvelope == nil { spec.dataEnvelope = dataKey }
    }
}

extension PayloadProfile {
    /// The Ember app's briefing notification: category `BRIEFING`, and `destination: "briefing"`
    /// beside `aps`, which the app's tap handler routes on (seed 002).
    package static let emberBriefing = PayloadProfile(
        name: "ember-briefing", category: "BRIEFING", defaultData: ["destination": "briefing"])

    /// Every built-in profile by name, as a configuration and `send-push --profile` name them.
    package static let named: [String: PayloadProfile] = Dictionary(
        uniqueKeysWithValues: [openClaw, openClawGateway, emberBriefing].map { ($0.name, $0) })

    /// The profile the config file's `profile` names, or `nil` when it names none.
    ///
    /// `"profile": "openclaw"` takes a built-in one (`named`); an object declares one:
    /// `{"extends": "openclaw", "title", "category", "thread_id", "sound", "mutable_content",
    /// "expiration", "data_key", "data"}`, each optional, on top of the profile it extends.
    /// - Throws: `ConfigurationError` (78) naming the member at fault.
    package static func configured(in file: ConfigurationFile) throws(ConfigurationError) -> PayloadProfile? {
        guard let value = file.values["profile"], value != .null else { return nil }
        let place = "profile in \(file.path)"
        if let name = value.stringValue { return try builtInProfile(name, place: place) }
        guard let members = value.objectValue else {
            throw ConfigurationError("\(place) must be a profile's name or an object, not \(value.typeName)")
        }
        let known: Set<String> = [
            "extends", "title", "category", "thread_id", "sound", "mutable_content", "expiration", "data_key", "data",
        ]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw ConfigurationError(
                "\(place) has \"\(unknown)\"; a profile has \(known.sorted().joined(separator: ", "))")
        }
        func text(_ key: String) throws(ConfigurationError) -> String?? {
            guard let member = members[key] else { return .none }
            if member == .null { return .some(nil) }
            guard let string = member.stringValue else {
                throw ConfigurationError("\(key) of \(place) must be a string or null, not \(member.typeName)")
            }
            return .some(string)
        }
        var profile = PayloadProfile(name: "configured")
        if let base = try text("extends") ?? nil { profile = try builtInProfile(base, place: place) }
        if let title = try text("title") { profile.title = title }
        if let category = try text("category") { profile.category = category }
        if let threadID = try text("thread_id") { profile.threadID = threadID }
        if let sound = try text("sound") { profile.sound = sound }
        if let dataKey = try text("data_key") {
            if dataKey == "aps" || dataKey?.isEmpty == true {
                throw ConfigurationError(
                    "data_key of \(place) must name a key beside \"aps\", not \"\(dataKey ?? "")\"")
            }
            profile.dataKey = dataKey
        }
        if let member = members["mutable_content"] {
            guard case .bool(let flag) = member else {
                throw ConfigurationError("mutable_content of \(place) must be true or false, not \(member.typeName)")
            }
            profile.mutableContent = flag
        }
        if let member = members["expiration"] {
            guard member == .null || (member.integerValue.map { $0 >= 0 } ?? false) else {
                throw ConfigurationError("expiration of \(place) must be 0 or more seconds since 1970, or null")
            }
            profile.expiration = member.integerValue
        }
        if let member = members["data"] {
            guard member == .null || member.objectValue != nil else {
                throw ConfigurationError("data of \(place) must be an object or null, not \(member.typeName)")
            }
            profile.defaultData = member.objectValue
        }
        return profile
    }

    private static func builtInProfile(_ name: String, place: String) throws(ConfigurationError) -> PayloadProfile {
        guard let profile = named[name] else {
            throw ConfigurationError(
                "\(place) names \"\(name)\"; the built-in profiles are \(named.keys.sorted().joined(separator: ", "))")
        }
        return profile
    }
}
