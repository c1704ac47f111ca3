#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a user said about one notification, as plain values (from `send-push`'s flags), and
/// the rules that turn it into an `APNsRequest`.
package struct PushSpecification: Sendable {
    /// The notification's fields; `build` sets its sound from `sound` and merges `data` into its custom data.
    package var content = NotificationContent()
    /// `--sound`; `nil` means the default (`default` for alerts), "none" means silent.
    package var sound: String?
    /// `--data`, each a JSON object merged beside `aps`.
    package var data: [String] = []
    /// The key the custom data goes under, as one object, instead of beside `aps` (a payload
    /// profile's `dataKey`, e.g. `openclaw`); `nil` leaves it beside `aps`.
    package var dataEnvelope: String?
    /// `--payload-file`: the bytes of a complete payload (or a simulator `.apns` file).
    package var payloadFile: Data?
    /// `--push-type`; alert by default.
    package var pushType = APNsPushType.alert
    /// `--priority`; `nil` means the push type's default.
    package var priority: APNsPriority?
    /// `--expiration` in UNIX seconds, 0 for try once; `nil` omits the header.
    package var expiration: Int?
    /// `--collapse-id`; `auto` becomes an id derived from the thread id, groups or topic (`NotificationPolicy`).
    package var collapseID: String?
    /// `--apns-id`, a lowercase UUID; `nil` lets APNs assign one.
    package var apnsID: String?
    /// The legacy positional form `send-push MESSAGE_ID PREVIEW` (and `--hook [MESSAGE_ID]`, whose
    /// message id is optional).
    package var legacy: (messageID: String?, preview: String)?
    /// The config file's `title`, used by the legacy form.
    package var configuredTitle: String?

    /// An alert with nothing set; `build` refuses it until something is given to send.
    package init() {}

    /// The longest preview the legacy form sends before cutting it and adding "...".
    package static let legacyPreviewLimit = 100
    /// The key of a simulator `.apns` file that names the app; dropped from the payload.
    package static let simulatorBundleKey = "Simulator Target Bundle"

    /// What `build` produced.
    package struct Built: Sendable {
        /// The request, headers and payload, checked.
        package let request: APNsRequest
        /// Whether the body was shortened to fit the size limit.
        package let shortened: Bool
    }

    /// Builds and checks the request.
    /// - Parameter bundleID: the configured topic; may be `nil` when a `.apns` file names the app.
    /// - Throws: `PayloadError` (exit 65) for a payload or header APNs would refuse, or
    ///   `ConfigurationError` (78) when no topic is known.
    package func build(bundleID configuredBundleID: String?) throws -> Built {
        var bundleID = configuredBundleID
        let payload: Data
        var shortened = false
        if let payloadFile {
            if content.liveActivity != nil {
                throw PayloadError.invalid(
                    "\(setting: .payloadFile) is a complete payload; it cannot be combined with \(setting: .liveActivity)"
                )
            }
            let (data, simulatorBundle) = try Self.completePayload(payloadFile)
            if bundleID == nil { bundleID = simulatorBundle }
            payload = data
        } else {
            var content = try self.content(pushType: pushType, bundleID: bundleID)
            for text in data {
                let value = try? JSONValue.parse(Data(text.utf8))
                guard let object = value?.objectValue else {
                    throw PayloadError.invalid(
                        "\(setting: .data) must be a JSON object, e.g. '{\"message_id\":\"42\"}', not \(text)")
                }
                if object["aps"] != nil {
                    throw PayloadError.invalid(
                        "\(setting: .data) cannot set \"aps\"; use the notification flags or \(setting: .payloadFile)")
                }
                content.customData.merge(object) { _, new in new }
            }
            if let key = dataEnvelope, !content.customData.isEmpty {
                if key == "aps" { throw PayloadError.invalid("the custom data cannot go under \"aps\"") }
                content.customData = [key: .object(content.customData)]
            }
            (payload, shortened) = try PayloadFitter.fit(content, limit: pushType.maximumPayloadSize)
        }
        guard let bundleID, !bundleID.isEmpty else {
            throw ConfigurationError.noTopic
        }
        let request = APNsRequest(
            bundleID: bundleID, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID?.lowercased(), payload: payload)
        try request.validate()
        return Built(request: request, shortened: shortened)
    }

    private func content(pushType: APNsPushType, bundleID: String?) throws -> NotificationContent {
        var content = self.content
        if let legacy {
            content.title =
                content.title ?? configuredTitle ?? bundleID.flatMap { $0.split(separator: ".").last.map(String.init) }
            let preview = legacy.preview
            content.body =
                preview.count > Self.legacyPreviewLimit
                ? String(preview.prefix(Self.legacyPreviewLimit)) + "..." : preview
            content.badge = content.badge ?? 1
            if let messageID = legacy.messageID { content.customData["message_id"] = .string(messageID) }
        }
        if let liveActivity = content.liveActivity {
            guard pushType == .liveactivity else {
                throw PayloadError.invalid(
                    "\(setting: .liveActivity) needs push type liveactivity, not \(pushType.rawValue)")
            }
            try liveActivity.validate()
        }
        let hasAlert = content.title != nil || content.subtitle != nil || content.body != nil
        if pushType == .background {
            if hasAlert || content.badge != nil || sound != nil {
                throw PayloadError.invalid(
                    "background notifications carry no alert, badge or sound; drop them or use \(setting: .pushType) alert"
                )
            }
            content.contentAvailable = true
        } else if pushType == .alert, !hasAlert, content.badge == nil, !content.contentAvailable, data.isEmpty {
            throw PayloadError.nothingToSend(
                "nothing to send: give \(setting: .title)/\(setting: .body) (or MESSAGE_ID PREVIEW), \(setting: .badge), \(setting: .data) or \(setting: .payloadFile)"
            )
        }
        switch sound {
        case nil: content.sound = (pushType == .alert && hasAlert) ? "default" : nil
        case "none"?: content.sound = nil
        case let name?: content.sound = name
        }
        if let score = content.relevanceScore, !(0...1).contains(score) {
            throw PayloadError.invalid("\(setting: .relevanceScore) must be between 0 and 1, not \(score)")
        }
        if let badge = content.badge, badge < 0 {
            throw PayloadError.invalid("\(setting: .badge) must be 0 or more, not \(badge)")
        }
        return content
    }

    /// Parses a complete payload; a simulator `.apns` file's bundle key is removed and returned.
    static func completePayload(_ bytes: Data) throws(PayloadError) -> (Data, String?) {
        guard !bytes.isEmpty else { throw PayloadError.invalid("\(setting: .payloadFile) is empty") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw PayloadError.invalid("\(setting: .payloadFile) is not valid JSON: \(error.detail)")
        }
        guard var object = value.objectValue else {
            throw PayloadError.invalid("\(setting: .payloadFile) must hold a JSON object, not a \(value.typeName)")
        }
        guard object["aps"]?.objectValue != nil else {
            throw PayloadError.invalid("\(setting: .payloadFile) has no \"aps\" object; APNs requires one")
        }
        guard let bundle = object.removeValue(forKey: simulatorBundleKey) else { return (bytes, nil) }
        return (JSONValue.object(object).serialized(), bundle.stringValue)
    }
}
