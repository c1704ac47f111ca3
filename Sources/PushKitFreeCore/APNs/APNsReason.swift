/// The `reason` APNs gives in an error response body, e.g. `{"reason":"BadDeviceToken"}`.
///
/// Known reasons are static values that carry the HTTP status Apple sends them with. A reason this
/// version does not know still parses (`init(rawValue:)` never fails) and reports `isKnown == false`
/// and no `status`, so a new reason from Apple is shown as it is rather than lost.
package struct APNsReason: ProviderReason {
    /// The reason as it appears in the body, e.g. `BadDeviceToken`.
    package let rawValue: String

    /// A reason from its text; never fails, an unknown reason is kept as it is.
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    // MARK: 400 Bad Request
    /// The `apns-collapse-id` is longer than 64 bytes.
    package static let badCollapseID = APNsReason(rawValue: "BadCollapseId")
    /// The device token is not valid, or belongs to the other environment.
    package static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    /// The `apns-expiration` is not valid.
    package static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    /// The `apns-id` is not valid.
    package static let badMessageID = APNsReason(rawValue: "BadMessageId")
    /// The `apns-priority` is not valid.
    package static let badPriority = APNsReason(rawValue: "BadPriority")
    /// The `apns-topic` is not valid.
    package static let badTopic = APNsReason(rawValue: "BadTopic")
    /// The device token does not belong to the topic's app.
    package static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    /// A header appears more than once.
    package static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    /// The connection was idle too long.
    package static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    /// The `apns-push-type` is not valid.
    package static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    /// The request path has no device token.
    package static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    /// No `apns-topic` header where one is required.
    package static let missingTopic = APNsReason(rawValue: "MissingTopic")
    /// The payload is empty.
    package static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    /// The key or certificate may not push to this topic.
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
    /// The client certificate is not valid.
    package static let badCertificate = APNsReason(rawValue: "BadCertificate")
    /// The client certificate is for the other environment.
    package static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    /// The provider token is stale (issued over an hour ago): sign a new one.
    package static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    /// The action is not allowed.
    package static let forbidden = APNsReason(rawValue: "Forbidden")
    /// The provider token is not valid, or its signature does not verify.
    package static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    /// No `authorization` header and no client certificate.
    package static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    /// The token's key is not the key this connection's first request used; a new connection is needed.
    package static let unrelatedKeyIDInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    /// The token's key is limited to the other environment.
    package static let badEnvironmentKeyIDInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")

    // MARK: 404, 405, 410, 413
    /// The request path is not valid (404).
    package static let badPath = APNsReason(rawValue: "BadPath")
    /// The method is not `POST` (405).
    package static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    /// The device token has expired (410); the app must register a new one.
    package static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    /// The device token is no longer active for the topic (410); stop sending to it.
    package static let unregistered = APNsReason(rawValue: "Unregistered")
    /// The payload exceeds the push type's size limit (413).
    package static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")

    // MARK: 429, 500, 503
    /// The provider token changes too often (429); Apple allows a new one at most every 20 minutes.
    package static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    /// Too many requests to the same device token in a row (429).
    package static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    /// APNs had an internal error (500).
    package static let internalServerError = APNsReason(rawValue: "InternalServerError")
    /// APNs is unavailable (503).
    package static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    /// The APNs server is shutting down (503).
    package static let shutdown = APNsReason(rawValue: "Shutdown")

    /// The reasons Apple documents, each with the HTTP status it comes with.
    package static let statuses: [String: Int] = [
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

    /// Status and reason, e.g. `410 Unregistered`.
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
