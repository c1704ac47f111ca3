#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A push in Bark's protocol (`POST /push` with JSON, or `GET`/`POST /:key/:body`,
/// `/:key/:title/:body`, `/:key/:title/:subtitle/:body`), read into what this server sends.
///
/// Parameters come from the path, the query, a form or a JSON body; the path wins, then the body,
/// then the query. Mapped: `title`, `subtitle`, `body` (or `markdown`, sent as text), `level`
/// (`active`, `timeSensitive`, `passive`, `critical`: the interruption level; `critical` is a
/// critical alert, refused unless the config allows them), `volume` (a critical alert's volume,
/// 0 to 10 as Bark counts it, 5 by default; ignored for other levels), `group` (the thread
/// id), `url` (`url` beside `aps`), `badge`, `sound`, `category`, `id` (the collapse id), `image`
/// (`image_url` beside `aps`: an https URL the app attaches). Accepted and
/// ignored: `isArchive`, `icon`, `copy`, `autoCopy`, `call`, `action`, `ttl` and anything
/// unknown. Refused (400): `ciphertext` (encrypted pushes). A bad `level`, `badge` or `volume` is
/// refused in any source, even where another source gives the one used.
///
/// `delete=1` with `id` takes back the notification sent with that `id`: a withdrawal
/// (`PushSpecification.withdrawal(of:)`) of its collapse id (`collapseID(_:)`), with no title or
/// body needed; `delete` without `id` is refused (400).
package struct BarkMessage: Sendable, Equatable {
    /// The keys: device ids or groups (`device_key`, or the array `device_keys`).
    package var keys: [String]
    /// `title`.
    package var title: String?
    /// `subtitle`.
    package var subtitle: String?
    /// `body`, else `markdown` (sent as text).
    package var body: String?
    /// `level`: Bark's names of the interruption levels.
    package var level: InterruptionLevel?
    /// The thread id notifications are grouped under.
    package var group: String?
    /// `url`: sent beside `aps` as `url`, for the app to open.
    package var url: String?
    /// `badge`: 0 to `maximumBadge`; 0 removes the badge.
    package var badge: Int?
    /// `sound`: a sound file name, sent as given.
    package var sound: String?
    /// `category`: the app's notification category.
    package var category: String?
    /// `apns-collapse-id`: a newer notification with the same id replaces the older.
    package var collapseID: String?
    /// `image`: an https URL of a picture the app attaches (`PushSpecification.imageURL`).
    package var image: String?
    /// `volume`: a critical alert's volume on Bark's scale, 0 to 10.
    package var volume: Double?
    /// `delete`: take back the notification sent with `collapseID` instead of sending one.
    package var delete: Bool

    /// Reads a push from its parameters: `path` (already percent-decoded, winning over the rest),
    /// then `body` (a JSON object or a form's fields), then `query`; no key may be one of
    /// `reservedNames` (`RouteCatalogue.reservedNames`).
    /// - Throws: `EndpointError` 400 naming the parameter at fault, 404 for a reserved key.
    package init(
        path: [String: String], body: [String: JSONValue], query: [String: String], reservedNames: Set<String>
    ) throws(EndpointError) {
        // Each source is checked whole, so that a bad value is refused even where another source wins.
        let sources = [query.mapValues(JSONValue.string), body, path.mapValues(JSONValue.string)]
        for source in sources { try Self.check(source) }
        var merged: [String: JSONValue] = [:]
        for source in sources { merged.merge(source) { _, later in later } }

        var keys: [String] = []
        if let value = merged["device_keys"], value != .null {
            if let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) {
                keys = items.compactMap(\.stringValue)
            } else if let list = value.stringValue {
                keys = list.split(separator: ",").map { String($0).trimmingWhitespace }
            } else {
                throw .badRequest("\"device_keys\" must be an array of strings, not \(value.typeName)")
            }
        }
        if let key = try Self.string(merged, "device_key") { keys.insert(key, at: 0) }
        guard !keys.isEmpty else {
            throw .badRequest("\"device_key\" is missing: the device id or group to send to")
        }
        for key in keys { try NotifierAudience.validate(key, as: "device_key", reservedNames: reservedNames) }
        self.keys = keys

        title = try Self.string(merged, "title")
        subtitle = try Self.string(merged, "subtitle")
        var text = try Self.string(merged, "body")
        if text == nil { text = try Self.string(merged, "markdown") }
        self.body = text
        collapseID = try Self.string(merged, "id").flatMap(Self.collapseID)
        delete = Self.isSet(merged["delete"])
        if delete && collapseID == nil {
            throw .badRequest("\"delete\" needs \"id\": the id the notification was sent with")
        }
        if !delete && (title ?? "").isEmpty && (self.body ?? "").isEmpty {
            throw .badRequest("nothing to send: give \"title\" or \"body\"")
        }
        level = try Self.string(merged, "level").flatMap { Self.levels[$0] }
        group = try Self.string(merged, "group").flatMap { $0.isEmpty ? nil : $0 }
        url = try Self.string(merged, "url").flatMap { $0.isEmpty ? nil : $0 }
        image = try Self.string(merged, "image").flatMap { $0.isEmpty ? nil : $0 }
        sound = try Self.string(merged, "sound").flatMap { $0.isEmpty ? nil : $0 }
        category = try Self.string(merged, "category").flatMap { $0.isEmpty ? nil : $0 }
        badge = try merged["badge"].flatMap(Self.badge)
        volume = try merged["volume"].flatMap(Self.volume)
    }

    /// The volume Bark's app plays a critical alert at when none is given, on its 0 to 10 scale.
    static let defaultVolume = 5.0

    /// A volume: a number from 0 to 10, as a number or as its digits; `nil` for null.
    private static func volume(_ value: JSONValue) throws(EndpointError) -> Double? {
        if value == .null { return nil }
        let digits = value.stringValue.flatMap { text in text.utf8.count <= 8 ? Double(text) : nil }
        guard let volume = value.numberValue ?? digits, volume.isFinite, (0...10).contains(volume) else {
            throw .badRequest("\"volume\" must be a number from 0 to 10")
        }
        return volume
    }

    /// The `apns-collapse-id` of an `id`: itself, or, when it is longer than APNs takes or holds a
    /// control character (which a header cannot carry), its SHA-256 in hex (64 characters), so
    /// that the same id still replaces the same notification; `nil` for an empty one.
    static func collapseID(_ id: String) -> String? {
        if id.isEmpty { return nil }
        let fits = id.utf8.count <= APNsRequest.maximumCollapseIDBytes && !HeaderValue.hasControlCharacter(id)
        return fits ? id : HexDigest.sha256(id)
    }

    /// Refuses what no source may hold: an encrypted push, a `level` or `badge` that is not one, a
    /// mapped member that is not text.
    private static func check(_ source: [String: JSONValue]) throws(EndpointError) {
        if let value = source["ciphertext"], value != .null {
            throw .badRequest("\"ciphertext\" is not supported: this server takes no encrypted pushes; send the text")
        }
        for key in [
            "device_key", "title", "subtitle", "body", "markdown", "group", "url", "sound", "category", "id", "image",
        ] {
            _ = try string(source, key)
        }
        var keys = try string(source, "device_key").map { [$0] } ?? []
        if let items = source["device_keys"]?.arrayValue { keys += items.compactMap(\.stringValue) }
        if let key = keys.first(where: { !NotifierAudience.isValidName($0) }) {
            throw .badRequest(
                "device_key \"\(AccessLog.maskedPath(key))\" must be 1 to 64 letters, digits, - or _ "
                    + "(a device id or a group name)")
        }
        if let level = try string(source, "level"), levels[level] == nil {
            throw .badRequest("\"level\" must be active, timeSensitive, passive or critical, not \"\(level)\"")
        }
        if let value = source["badge"] { _ = try badge(value) }
        if let value = source["volume"] { _ = try volume(value) }
    }

    /// A badge: a whole number from 0 to `maximumBadge`, as a number or as its digits; `nil` for null.
    private static func badge(_ value: JSONValue) throws(EndpointError) -> Int? {
        if value == .null { return nil }
        let digits = value.stringValue.flatMap { text in
            (1...5).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) } ? Int(text) : nil
        }
        guard let badge = value.integerValue ?? digits, (0...maximumBadge).contains(badge) else {
            throw .badRequest("\"badge\" must be a whole number from 0 to \(maximumBadge)")
        }
        return badge
    }

    /// Bark's levels, and the interruption level each is.
    static let levels: [String: InterruptionLevel] = [
        "active": .active, "timeSensitive": .timeSensitive, "passive": .passive, "critical": .critical,
    ]

    /// The largest badge taken.
    static let maximumBadge = 99_999

    /// Whether a flag is on: anything but absent, null, false, 0, "" and "0".
    private static func isSet(_ value: JSONValue?) -> Bool {
        guard let value, value != .null else { return false }
        if let flag = value.boolValue { return flag }
        if let number = value.numberValue { return number != 0 }
        if let text = value.stringValue { return !(text.isEmpty || text == "0" || text == "false") }
        return true
    }

    /// A member as text; `nil` when absent or null.
    private static func string(_ object: [String: JSONValue], _ key: String) throws(EndpointError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else {
            throw .badRequest("\"\(key)\" must be a string, not \(value.typeName)")
        }
        return text
    }

    /// The alert to send, or with `delete` the withdrawal of `collapseID`.
    package var specification: PushSpecification {
        if delete, let collapseID { return .withdrawal(of: collapseID) }
        var spec = PushSpecification()
        spec.content.title = title.flatMap { $0.isEmpty ? nil : $0 }
        spec.content.subtitle = subtitle.flatMap { $0.isEmpty ? nil : $0 }
        spec.content.body = body.flatMap { $0.isEmpty ? nil : $0 }
        spec.content.interruptionLevel = level
        spec.content.threadID = group
        spec.content.badge = badge
        spec.content.category = category
        spec.sound = sound
        spec.collapseID = collapseID
        spec.imageURL = image
        if level == .critical { spec.volume = (volume ?? Self.defaultVolume) / 10 }
        if let url { spec.content.customData[NotificationContent.openURLKey] = .string(url) }
        return spec
    }

    /// Bark's answer: `{"code": 200, "message": "success", "timestamp"}`, with how many devices were
    /// sent to, how many APNs took it for, and their ids (`delivered_to`).
    package static func success(time: Date, devices: Int, deliveredTo: [String]) -> JSONValue {
        .object([
            "code": 200, "message": "success", "timestamp": .number(Double(Int(time.timeIntervalSince1970))),
            "devices": .number(Double(devices)), "delivered": .number(Double(deliveredTo.count)),
            "delivered_to": .array(deliveredTo.map(JSONValue.string)),
        ])
    }
}
