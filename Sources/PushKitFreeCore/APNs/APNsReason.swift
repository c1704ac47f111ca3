/// The `reason` APNs gives in an error response body, e.g. `{"reason":"BadDeviceToken"}`.
///
/// Known reasons are static values that carry the HTTP status Apple sends them with. A reason this
/// version does not know still parses (`init(rawValue:)` never fails) and reports `isKnown == false`
/// and no `status`, so a new reason from Apple is shown as it is rather than lost.
package struct APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    /// Whether this is one of the reasons Apple documents (or `badPayload`, see there).
    package var isKnown: Bool { Self.statuses[rawValue] != nil }

    /// The HTTP status Apple answers with this reason; `nil` for an unknown reason.
    package var status: Int? { Self.statuses[rawValue] }

    // MARK: 400 Bad Request
    package static let badCollapseID = APNsReason(rawValue: "BadCollapseId")
    package static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    package static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    package static let badMessageID = APNsReason(rawValue: "BadMessageId")
    package static let badPriority = APNsReason(rawValue: "BadPriority")
    package static let badTopic = APNsReason(rawValue: "BadTopic")
    package static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    package static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    package static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    package static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    package static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    package static let missingTopic = APNsReason(rawValue: "MissingTopic")
    package static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    package static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    /// A body that is not a JSON object with an `aps` object. Apple's table has no reason for this;
    /// the emulator answers it with 400.
    package static let badPayload = APNsReason(rawValue: "BadPayload")

    // MARK: 400, broadcast channels and their management API
    // Apple's "Handling error responses from APNs" (the channel management and broadcast table):
    // its statuses are 400, 403, 404, 405, 413, 429, 500 and 503, with no 410, so an unknown or
    // deleted channel is a 400 (peers agree: node-apn's users, mobile-surfaces' push SDK).
    /// No `apns-channel-id` header where one is required.
    package static let missingChannelID = APNsReason(rawValue: "MissingChannelId")
    /// An `apns-channel-id` that is not base64, or too long.
    package static let badChannelID = APNsReason(rawValue: "BadChannelId")
    /// An `apns-channel-id` that does not exist (never created, or deleted) in this environment.
    package static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    /// The app has as many channels as Apple allows (10,000 per environment).
    package static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    /// No `apns-push-type` header (broadcast) or `push-type` member (channel creation).
    package static let missingPushType = APNsReason(rawValue: "MissingPushType")
    /// Broadcast is not enabled for the app (the Broadcast Capability in the developer account).
    package static let featureNotEnabled = APNsReason(rawValue: "FeatureNotEnabled")

    // MARK: 403 Forbidden
    package static let badCertificate = APNsReason(rawValue: "BadCertificate")
    package static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    package static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    package static let forbidden = APNsReason(rawValue: "Forbidden")
    package static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    package static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    package static let unrelatedKeyIDInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    package static let badEnvironmentKeyIDInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")

    // MARK: 404, 405, 410, 413
    package static let badPath = APNsReason(rawValue: "BadPath")
    package static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    package static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    package static let unregistered = APNsReason(rawValue: "Unregistered")
    package static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")

    // MARK: 429, 500, 503
    package static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    package static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    package static let internalServerError = APNsReason(rawValue: "InternalServerError")
    package static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    package static let shutdown = APNsReason(rawValue: "Shutdown")

    /// Every known reason.
    package static let allKnown: [APNsReason] = statuses.keys.sorted().map(APNsReason.init(rawValue:))

    private static let statuses: [String: Int] = [
        "BadCollapseId": 400, "BadDeviceToken": 400, "BadExpirationDate": 400, "BadMessageId": 400,
        "BadPriority": 400, "BadTopic": 400, "DeviceTokenNotForTopic": 400, "DuplicateHeaders": 400,
        "IdleTimeout": 400, "InvalidPushType": 400, "MissingDeviceToken": 400, "MissingTopic": 400,
        "PayloadEmpty": 400, "TopicDisallowed": 400, "BadPayload": 400,
        "MissingChannelId": 400, "BadChannelId": 400, "ChannelNotRegistered": 400, "CannotCreateChannelConfig": 400,
        "MissingPushType": 400, "FeatureNotEnabled": 400,
        "BadCertificate": 403, "BadCertificateEnvironment": 403, "ExpiredProviderToken": 403,
        "Forbidden": 403, "InvalidProviderToken": 403, "MissingProviderToken": 403,
        "UnrelatedKeyIdInToken": 403, "BadEnvironmentKeyIdInToken": 403,
        "BadPath": 404,
        "MethodNotAllowed": 405,
        "ExpiredToken": 410, "Unregistered": 410,
        "PayloadTooLarge": 413,
        "TooManyProviderTokenUpdates": 429, "TooManyRequests": 429,
        "InternalServerError": 500,
        "ServiceUnavailable": 503, "Shutdown": 503,
    ]
}

/// An APNs error answer: HTTP status and reason, as the emulator sends it and clients receive it.
package struct APNsRejection: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status, e.g. 400.
    package let status: Int
    /// The reason in the body.
    package let reason: APNsReason

    /// A rejection with the status Apple pairs with `reason`.
    package init(_ reason: APNsReason) {
        self.status = reason.status ?? 400
        self.reason = reason
    }

    /// A rejection with any status, e.g. an injected `500 InternalServerError`.
    package init(status: Int, reason: APNsReason) {
        self.status = status
        self.reason = reason
    }

    package var description: String { "\(status) \(reason)" }

    /// A refusal that may pass when the same request is sent again later: 429 TooManyRequests, and
    /// any 500 or 503 (Apple's advice: retry these with back-off).
    package var isTemporary: Bool {
        switch (status, reason) {
        case (429, .tooManyRequests), (500, _), (503, _): true
        default: false
        }
    }

    /// The provider token was refused (403 ExpiredProviderToken or InvalidProviderToken): a new
    /// token, then the same request again.
    package var refusesProviderToken: Bool {
        status == 403 && (reason == .expiredProviderToken || reason == .invalidProviderToken)
    }
}
