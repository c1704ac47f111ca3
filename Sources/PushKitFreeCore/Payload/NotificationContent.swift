/// What a notification says and does, from which the APNs payload (`aps` plus custom keys) is built.
///
/// Every field is optional; only the ones set appear in the payload. Custom data sits beside `aps`
/// at the top level, as Apple requires.
package struct NotificationContent: Sendable, Equatable {
    /// `aps.alert.title`.
    package var title: String?
    /// `aps.alert.subtitle`.
    package var subtitle: String?
    /// `aps.alert.body`.
    package var body: String?
    /// The app icon badge; 0 clears it.
    package var badge: Int?
    /// A sound file name, `default`, or `nil` for a silent notification.
    package var sound: String?
    /// A critical alert's volume, 0 to 1: when set, `aps.sound` is the critical sound dictionary
    /// `{"critical": 1, "name": sound ?? "default", "volume": criticalVolume}`, which plays even
    /// when the phone is muted (the app needs Apple's Critical Alerts entitlement).
    package var criticalVolume: Double?
    /// `aps.category`: the app's notification category, which chooses its actions.
    package var category: String?
    /// `aps.thread-id`: notifications with the same thread id are grouped together.
    package var threadID: String?
    /// `aps.mutable-content: 1`: the app's notification service extension may change the notification.
    package var mutableContent = false
    /// `aps.content-available: 1`: wakes the app in the background to fetch content.
    package var contentAvailable = false
    /// `aps.interruption-level`: passive, active, time-sensitive or critical.
    package var interruptionLevel: InterruptionLevel?
    /// 0 to 1: how the system ranks this notification in the summary.
    package var relevanceScore: Double?
    /// `aps.target-content-id`: the app window or content to bring forward when it is opened.
    package var targetContentID: String?
    /// Keys beside `aps`, e.g. `message_id`.
    package var customData: [String: JSONValue] = [:]

    /// The key beside `aps` under which a link the app opens when the notification is tapped is
    /// sent, by every way of asking for one (ntfy's click, Bark's url, the agent tools' url).
    package static let openURLKey = "url"
    /// A Live Activity's event, content state and dates, added to `aps`; its sound goes inside
    /// `alert`, where ActivityKit reads it.
    package var liveActivity: LiveActivity?

    /// Whether there is an alert to show: a title, a subtitle or a body.
    package var hasAlert: Bool { title != nil || subtitle != nil || body != nil }

    /// Empty content: a payload of `{"aps":{}}`.
    package init() {}

    /// The payload as a JSON object.
    package var payload: JSONValue {
        var aps: [String: JSONValue] = [:]
        var alert: [String: JSONValue] = [:]
        if let title { alert["title"] = .string(title) }
        if let subtitle { alert["subtitle"] = .string(subtitle) }
        if let body { alert["body"] = .string(body) }
        if let sound, liveActivity != nil { alert["sound"] = .string(sound) }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if let badge { aps["badge"] = .number(Double(badge)) }
        if let criticalVolume, liveActivity == nil {
            aps["sound"] = ["critical": 1, "name": .string(sound ?? "default"), "volume": .number(criticalVolume)]
        } else if let sound, liveActivity == nil {
            aps["sound"] = .string(sound)
        }
        if let category { aps["category"] = .string(category) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if mutableContent { aps["mutable-content"] = 1 }
        if contentAvailable { aps["content-available"] = 1 }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        if let relevanceScore { aps["relevance-score"] = .number(relevanceScore) }
        if let targetContentID { aps["target-content-id"] = .string(targetContentID) }
        if let liveActivity { aps.merge(liveActivity.apsMembers) { _, live in live } }
        var root = customData
        root["aps"] = .object(aps)
        return .object(root)
    }
}
