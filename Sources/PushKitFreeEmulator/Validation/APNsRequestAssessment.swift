import PushKitFreeCore

/// What the emulator made of one request: the fields it read (as far as they could be read) and
/// Apple's answer to it, `rejection == nil` meaning 200.
package struct APNsRequestAssessment: Sendable {
    /// Which API the request used: a device push, a broadcast, or a channel management call.
    package var kind: EmulatorRequestKind = .push
    /// `apns-channel-id` (broadcasts, channel read and delete), or the id a create made.
    package var channelID: String?
    /// `apns-request-id` as sent (broadcasts and channel management).
    package var requestID: String?
    /// The bundle id from a broadcast or channel management path.
    package var bundleID: String?
    /// The `message-storage-policy` of a channel create (as sent, when it is a number or a
    /// numeric string).
    package var storagePolicy: Int?
    /// The hex device token from the path.
    package var deviceToken: String?
    /// `apns-topic`.
    package var topic: String?
    /// `apns-push-type` as sent.
    package var pushTypeHeader: String?
    /// The push type that applies: the header's, or alert when it is absent.
    package var pushType: APNsPushType?
    /// `apns-priority` as sent.
    package var priorityHeader: String?
    /// `apns-collapse-id`.
    package var collapseID: String?
    /// `apns-id` as sent.
    package var apnsID: String?
    /// `apns-expiration` as sent.
    package var expirationHeader: String?
    /// The payload as compact JSON, when the body is JSON.
    package var payload: [UInt8]?
    /// The body's size in bytes.
    package var payloadSize = 0
    /// Why the body is not JSON, when it is not.
    package var payloadProblem: String?
    /// The provider token as checked (decoded parts, never the token itself).
    package var providerToken: ProviderTokenCheck?
    /// Why the provider token was refused, in words (the reason code says less).
    package var providerTokenProblem: String?
    /// Something about the provider token that was accepted although a stricter reading would
    /// refuse it (an `iat` string, a new token on another connection within 20 minutes).
    package var providerTokenNote: String?
    /// Something about the payload that was accepted although a stricter reading would refuse it
    /// (no `aps` object).
    package var payloadNote: String?
    /// The notes for the record's `detail`, when the request was accepted.
    package var acceptanceNote: String? {
        let notes = [providerTokenNote, payloadNote].compactMap { $0 }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }
    /// Whether the request carried a valid, current, admitted provider token. APNs raises a
    /// connection's stream limit after the first such request.
    package var isAuthenticated = false
    /// Apple's error answer; `nil` when the request is accepted.
    package var rejection: APNsRejection?

    /// Nothing read yet: a push, not authenticated, not rejected.
    package init() {}

    /// Whether APNs would accept the request (answer 200).
    package var isAccepted: Bool { rejection == nil }
}

/// The API a request to the emulator used, the `kind` of its record.
package enum EmulatorRequestKind: String, Sendable {
    /// `POST /3/device/<token>`.
    case push
    /// `POST /4/broadcasts/apps/<bundle id>`.
    case broadcast
    /// Channel management: `POST /1/apps/<bundle id>/channels`.
    case channelCreate = "channel-create"
    /// `GET /1/apps/<bundle id>/channels`.
    case channelRead = "channel-read"
    /// `DELETE /1/apps/<bundle id>/channels`.
    case channelDelete = "channel-delete"
    /// `GET /1/apps/<bundle id>/all-channels`.
    case channelList = "channel-list"
    /// A channel management path or method the API does not have.
    case channelManagement = "channel-management"
}
