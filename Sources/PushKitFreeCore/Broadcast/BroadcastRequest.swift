/// A broadcast push: one Live Activity update or end to every device subscribed to a channel, as
/// Apple's "Sending broadcast push notification requests to APNs" describes it.
///
/// `POST /4/broadcasts/apps/<bundle id>` on the usual push host (api.push.apple.com or
/// api.sandbox.push.apple.com), with `apns-channel-id`, `apns-push-type: liveactivity`,
/// `apns-priority`, `apns-expiration` and optionally `apns-request-id`; no `apns-topic` (the bundle
/// id is in the path) and no device token. APNs answers 200 with `apns-request-id`.
public struct BroadcastRequest: Sendable {
    /// The notification: bundle id, priority, expiration and payload (a Live Activity payload).
    public var notification: APNsRequest
    /// The channel's `apns-channel-id`.
    public var channelID: String
    /// `apns-request-id`, a UUID APNs echoes back; `nil` lets APNs make one.
    public var requestID: String?

    public init(notification: APNsRequest, channelID: String, requestID: String? = nil) {
        self.notification = notification
        self.channelID = channelID
        self.requestID = requestID
    }

    /// `/4/broadcasts/apps/<bundle id>`.
    public var path: String { "/4/broadcasts/apps/" + notification.bundleID }

    /// The request headers, names lowercase, for `providerToken` (the compact JWT).
    public func headers(providerToken: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + providerToken),
            ("apns-channel-id", channelID),
            ("apns-push-type", APNsPushType.liveactivity.rawValue),
            ("apns-priority", String(notification.priority.rawValue)),
        ]
        if let expiration = notification.expiration { headers.append(("apns-expiration", String(expiration))) }
        if let requestID { headers.append(("apns-request-id", requestID)) }
        headers.append(("content-type", "application/json"))
        return headers
    }

    /// The whole request for `baseURL` (`https://host[:port]`, trailing slash tolerated).
    public func http2Request(baseURL: String, providerToken: String, tag: Int = 0) -> HTTP2Request {
        HTTP2Request(
            url: (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + path,
            headers: headers(providerToken: providerToken), body: notification.payload, tag: tag)
    }
}
