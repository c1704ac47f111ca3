import PushKitFreeCore
import PushKitFreeRegistry

/// The `notify` tool's arguments, checked: the notification as `send-push` would build it from
/// the same flags, its urgency, and whom it goes to.
package struct NotifyRequest: Sendable {
    /// The alert: title, subtitle, body, badge; `url` and `data` beside `aps`; the collapse id.
    package var specification: PushSpecification
    /// `urgency`: low, normal, high or critical; `nil` leaves the interruption level to the app's
    /// default.
    package var urgency: Urgency?
    /// `device`, when one was named.
    package var device: String?
    /// `group`, when one was named.
    package var group: String?

    /// The key `url` is sent under, beside `aps`: the app opens it when the notification is tapped.
    package static let urlKey = NotificationContent.openURLKey
    /// APNs' limit on `apns-collapse-id`, in bytes.
    package static let collapseIDLimit = 64

    /// Reads the arguments an agent sent. Every member is optional but there must be a title or a
    /// body; unknown members are refused, so a misspelt one is never silently dropped.
    /// - Throws: `AgentToolError` naming the argument at fault.
    package init(_ arguments: [String: JSONValue]) throws(AgentToolError) {
        let known: Set<String> = [
            "title", "body", "subtitle", "urgency", "volume", "url", "data", "device", "group", "collapse_id", "badge",
            "image",
        ]
        if let unknown = arguments.keys.sorted().first(where: { !known.contains($0) }) {
            throw AgentToolError(
                "unknown argument \"\(unknown)\"; notify takes \(known.sorted().joined(separator: ", "))")
        }
        let fields = RequestBodyFields(arguments)
        var spec = PushSpecification()
        let url: String?
        var data: [String: JSONValue]
        let collapseID: String?
        do throws(RegistrationBodyError) {
            spec.content.title = try fields.string("title")
            spec.content.body = try fields.string("body")
            spec.content.subtitle = try fields.string("subtitle")
            spec.content.badge = try fields.integer("badge")
            urgency = try fields.urgency()
            spec.volume = try fields.number("volume")
            url = try fields.string("url")
            data = try fields.object("data") ?? [:]
            device = try fields.string("device")
            group = try fields.string("group")
            collapseID = try fields.string("collapse_id")
            spec.imageURL = try fields.string("image")
        } catch {
            throw AgentToolError(error.description)
        }
        if (spec.content.title ?? "").isEmpty && (spec.content.body ?? "").isEmpty {
            throw AgentToolError("nothing to send: give \"title\" or \"body\" (or both)")
        }
        if let badge = spec.content.badge, badge < 0 {
            throw AgentToolError("\"badge\" must be 0 or more (0 clears it), not \(badge)")
        }
        if device != nil && group != nil {
            throw AgentToolError("give \"device\" or \"group\", not both (neither: every device)")
        }
        if data["aps"] != nil { throw AgentToolError("\"data\" cannot set \"aps\"; it goes beside it") }
        if let url {
            guard !url.isEmpty, !url.contains(where: \.isWhitespace), url.contains(":") else {
                throw AgentToolError("\"url\" must be a URL such as https://example.com/page, not \"\(url)\"")
            }
            if data[Self.urlKey] != nil {
                throw AgentToolError("\"url\" is sent as data's \"\(Self.urlKey)\"; give it once")
            }
            data[Self.urlKey] = .string(url)
        }
        if let collapseID {
            guard !collapseID.isEmpty, collapseID.utf8.count <= Self.collapseIDLimit else {
                throw AgentToolError(
                    "\"collapse_id\" must be 1 to \(Self.collapseIDLimit) bytes, not \(collapseID.utf8.count)")
            }
            spec.collapseID = collapseID
        }
        spec.content.customData = data
        specification = spec
    }

    /// Whom the notification goes to: the device, the group, or every device.
    package var audience: PushSender.Audience {
        PushSender.Audience(
            deviceIDs: device.map { [$0] } ?? [], groups: group.map { [$0] } ?? [], strictGroups: true)
    }

    /// A setting as this tool's arguments name it, for the core's messages: `"title"`.
    package static func argumentName(_ setting: SendSetting) -> String {
        switch setting {
        case .title, .subtitle, .body, .badge, .data, .image, .volume: "\"\(setting.rawValue)\""
        case .collapseID: "\"collapse_id\""
        case .interruptionLevel: "\"urgency\""
        default: setting.phrase
        }
    }
}
