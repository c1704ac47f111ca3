/// An app's notification conventions, declared once: what every notification to it carries unless
/// the send says otherwise (title, category, thread id, sound, `mutable-content`, expiration), and
/// the key its custom data goes under (`nil`: beside `aps`).
///
/// The designs this project replaces each have one, built in (`builtIn`); each of their route
/// families sends with its design's profile, so the app reads what its own server sent.
public struct PayloadProfile: Sendable, Equatable {
    /// How configurations and messages name it.
    public var name: String
    /// The title when the send gives none.
    public var title: String?
    /// The category when the send gives none.
    public var category: String?
    /// The thread id when the send gives none.
    public var threadID: String?
    /// The sound when the send gives none.
    public var sound: String?
    /// Whether `mutable-content: 1` is set.
    public var mutableContent = false
    /// The `apns-expiration` header when the send gives none.
    public var expiration: Int?
    /// The key custom data goes under, as one object; `nil` puts its members beside `aps`.
    public var dataKey: String?
    /// The custom data when the send gives none.
    public var defaultData: [String: JSONValue]?

    public init(
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
    public static let openClaw = PayloadProfile(
        name: "openclaw", category: "OPENCLAW_MESSAGE", threadID: "openclaw", sound: "default",
        mutableContent: true, expiration: 0, dataKey: "openclaw")

    /// The OpenClaw gateway extension's notifier (seed 001): as `openClaw`, without the expiration
    /// header, with the title `OpenClaw` and the data `{"type": "start_conversation"}` when the
    /// hook's body gives none.
    public static let openClawGateway = PayloadProfile(
        name: "openclaw-gateway", title: "OpenClaw", category: "OPENCLAW_MESSAGE", threadID: "openclaw",
        sound: "default", mutableContent: true, dataKey: "openclaw", defaultData: ["type": "start_conversation"])

    /// The profiles a configuration can name.
    public static let builtIn: [String: PayloadProfile] = [
        openClaw.name: openClaw, openClawGateway.name: openClawGateway,
    ]

    /// `spec` with what this profile declares wherever `spec` leaves it unset, and its custom data
    /// put under `dataKey`.
    public func apply(to spec: inout PushSpecification) {
        if spec.content.title == nil, spec.legacy == nil { spec.content.title = title }
        if spec.content.category == nil { spec.content.category = category }
        if spec.content.threadID == nil { spec.content.threadID = threadID }
        if spec.sound == nil { spec.sound = sound }
        if mutableContent { spec.content.mutableContent = true }
        if spec.expiration == nil { spec.expiration = expiration }
        if spec.content.customData.isEmpty, let defaultData { spec.content.customData = defaultData }
        if let dataKey, !spec.content.customData.isEmpty {
            spec.content.customData = [dataKey: .object(spec.content.customData)]
        }
    }
}
