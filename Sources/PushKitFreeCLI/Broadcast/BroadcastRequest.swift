import PushKitFreeCore
/// A broadcast push: one Live Activity update or end to every device subscribed to a channel, as
/// Apple's "Sending broadcast push notification requests to APNs" describes it.
///
/// `POST /4/broadcasts/apps/<bundle id>` on the usual push host (api.push.apple.com or
/// api.sandbox.push.apple.com), with `apns-channel-id`, `apns-push-type: liveactivity`,
/// `apns-priority`, `apns-expiration` and optionally `apns-request-id`; no `apns-topic` (the bundle
/// id is in the path) and no device token. APNs answers 200 with `apns-request-id`.
package struct BroadcastRequest: Sendable {
    /// The notification: bundle id, priority, expiration and payload (a Live Activity payload).
    package var notification: APNsRequest
    /// The channel's `apns-channel-id`.
    package var channelID: String
    /// `apns-request-id`, a UUID APNs echoes back; `nil` lets APNs make one.
    package var requestID: String?

    /// A broadcast of `notification` to `channelID`.
    package init(notification: APNsRequest, channelID: String, requestID: String? = nil) {
        self.notification = notification
        self.channelID = channelID
        self.requestID = requestID
    }

    /// `/4/broadcasts/apps/<bundle id>`.
    package var path: String { "/4/broadcasts/apps/" + notification.bundleID }

    /// The request headers, names lowercase, for `providerToken` (the compact JWT).
    package func headers(providerToken: String) -> [(name: String, value: String)] {
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
    package func http2Request(baseURL: String, providerToken: String, tag: Int = 0) -> HTTP2Request {
        HTTP2Request(
            url: (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + path,
            headers: headers(providerToken: providerToken), body: notification.payload, tag: tag)
    }
}
