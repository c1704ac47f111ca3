import PushKitFreeCore
import PushKitFreeRegistry

/// The body other services post to make the phone buzz (`/api/v1/notifications/send`,
/// `/hooks/ios-notify`): `{"title", "body" or "message", "subtitle", "category", "badge", "data", "image",
/// "encrypt", "urgency", "volume"}`.
package struct NotificationRequestBody: Sendable, Equatable {
    /// `title`; when missing or empty, the profile's title if it has one.
    package var title: String?
    /// `body`, or `message` when there is no `body`.
    package var body: String?
    /// `subtitle`; an empty one is left out, as both OpenClaw designs leave it out.
    package var subtitle: String?
    /// `category`: the notification category the app registered, for its actions.
    package var category: String?
    /// `badge`: the app icon badge, 0 or more; 0 clears it, `nil` leaves it alone. A string holding a
    /// whole number (`"2"`) is that number, as the OpenClaw service's pydantic model reads it.
    package var badge: Int?
    /// Members put beside `aps` in the payload (under the profile's `dataKey`, when it has one).
    package var data: [String: JSONValue]
    /// The conventions of the design whose route took the body (`PayloadProfile`); `nil`: none.
    package var profile: PayloadProfile?
    /// `encrypt`: seal the payload with each device's content key (true) or send it in clear
    /// (false); `nil` leaves it to the config file's `encrypt`.
    package var encrypt: Bool?
    /// `image`: an https URL the app attaches to the notification (`PushSpecification.imageURL`).
    package var image: String?
    /// `urgency`: low, normal, high or critical, as `send-push --urgency`; `nil` leaves the
    /// interruption level to the app's default.
    package var urgency: Urgency?
    /// `volume`: a critical alert's volume, 0 to 1 (`PushSpecification.volume`).
    package var volume: Double?

    /// Reads a body; every member is optional, but there must be a title or a body. A profile's
    /// title stands in for a title that is missing or empty (the OpenClaw gateway's `OpenClaw`).
    /// - Throws: `EndpointError` 400 naming the member at fault.
    package init(_ json: JSONValue, profile: PayloadProfile? = nil) throws(EndpointError) {
        guard let object = json.objectValue else {
            throw .badRequest("expected a JSON object, not \(json.typeName)")
        }
        let fields = RequestBodyFields(object)
        do throws(RegistrationBodyError) {
            title = try fields.string("title")
            body = try fields.string("body", "message")
            subtitle = try fields.string("subtitle").flatMap { $0.isEmpty ? nil : $0 }
            category = try fields.string("category")
            if let number = Self.wholeNumberString(object["badge"]) {
                badge = number
            } else {
                badge = try fields.integer("badge")
            }
            data = try fields.object("data") ?? [:]
            encrypt = try fields.bool("encrypt")
            image = try fields.string("image").flatMap { $0.isEmpty ? nil : $0 }
            urgency = try fields.urgency()
            volume = try fields.number("volume")
        } catch {
            throw EndpointError(error)
        }
        self.profile = profile
        if (title ?? "").isEmpty, let fallback = profile?.title { title = fallback }
        if (title ?? "").isEmpty && (body ?? "").isEmpty {
            throw .badRequest("nothing to send: give \"title\" or \"body\"")
        }
        if let badge, badge < 0 { throw .badRequest("\"badge\" must be 0 or more, not \(badge)") }
        if data["aps"] != nil { throw .badRequest("\"data\" cannot set \"aps\"; it goes beside it") }
    }

    /// The number a JSON string holds when it is a whole number written in decimal, spaces around
    /// it allowed (pydantic's lax mode for an `int` field); `nil` for anything else, which
    /// `RequestBodyFields.integer` then judges.
    static func wholeNumberString(_ value: JSONValue?) -> Int? {
        guard case .string(let text) = value else { return nil }
        var trimmed = Substring(text)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        guard trimmed.utf8.count <= 18 else { return nil }
        return Int(trimmed)
    }

    /// The alert as `send-push --title ... --body ... --data ...` would send it, with the profile's
    /// conventions where the body leaves them unset (`PayloadProfile.apply`).
    package var specification: PushSpecification {
        var spec = PushSpecification()
        spec.content.title = title
        spec.content.body = body
        spec.content.subtitle = subtitle
        spec.content.category = category
        spec.content.badge = badge
        spec.content.customData = data
        spec.encrypt = encrypt
        spec.imageURL = image
        spec.volume = volume
        profile?.apply(to: &spec)
        return spec
    }
}
