#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request to Apple's channel management API (the `api-manage-broadcast` hosts), as Apple's
/// "Sending channel management requests to APNs" describes it:
///
/// | operation | request | success |
/// |---|---|---|
/// | create | `POST /1/apps/<bundle id>/channels`, body `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}` | 201, `apns-channel-id` |
/// | read | `GET /1/apps/<bundle id>/channels`, header `apns-channel-id` | 200, `{"message-storage-policy", "push-type"}` |
/// | delete | `DELETE /1/apps/<bundle id>/channels`, header `apns-channel-id` | 204 |
/// | list | `GET /1/apps/<bundle id>/all-channels` | 200, `{"channels": [ids]}` |
///
/// The channel id travels in a header, never in the path (APNSwift's `/channels/<id>` paths differ
/// from Apple's; Apple's are used here).
package struct ChannelManagementRequest: Sendable, Equatable {
    /// What the request does.
    package enum Operation: Sendable, Equatable {
        case create(ChannelStoragePolicy)
        case read(channelID: String)
        case delete(channelID: String)
        case list
    }

    /// The app's bundle id (no push-type suffix).
    package var bundleID: String
    /// What the request does, and to which channel.
    package var operation: Operation
    /// `apns-request-id`, a UUID APNs echoes back; `nil` lets APNs make one.
    package var requestID: String?

    /// A request about `bundleID`'s channels.
    package init(bundleID: String, operation: Operation, requestID: String? = nil) {
        self.bundleID = bundleID
        self.operation = operation
        self.requestID = requestID
    }

    /// The `push-type` every channel has today: Apple documents the one value `LiveActivity`.
    package static let pushType = "LiveActivity"

    /// `POST` to create, `GET` to read or list, `DELETE` to delete.
    package var method: HTTP2Method {
        switch operation {
        case .create: .post
        case .read, .list: .get
        case .delete: .delete
        }
    }

    /// `/1/apps/<bundle id>/channels`, or `/1/apps/<bundle id>/all-channels` for a list.
    package var path: String {
        let base = "/1/apps/" + bundleID
        if case .list = operation { return base + "/all-channels" }
        return base + "/channels"
    }

    /// The channel the request names, for read and delete.
    package var channelID: String? {
        switch operation {
        case .read(let id), .delete(let id): id
        case .create, .list: nil
        }
    }

    /// The request headers, names lowercase, for `providerToken` (the compact JWT).
    package func headers(providerToken: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("authorization", "bearer " + providerToken)]
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        if let requestID { headers.append(("apns-request-id", requestID)) }
        if case .create = operation { headers.append(("content-type", "application/json")) }
        return headers
    }

    /// The body: the channel's configuration for create, empty otherwise.
    package var body: Data {
        guard case .create(let policy) = operation else { return Data() }
        return JSONValue.object([
            "message-storage-policy": .number(Double(policy.rawValue)),
            "push-type": .string(Self.pushType),
        ]).serialized()
    }

    /// The whole request for `baseURL` (`https://host[:port]`, trailing slash tolerated).
    package func http2Request(baseURL: String, providerToken: String, tag: Int = 0) -> HTTP2Request {
        HTTP2Request(
            url: (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + path,
            headers: headers(providerToken: providerToken), body: body, tag: tag, method: method)
    }
}
