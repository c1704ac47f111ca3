#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One FCM HTTP v1 send, `POST {fcm_url}/v1/projects/{project_id}/messages:send`, built from the
/// very notification the APNs path sends, so an iOS app behind FCM gets what it would get from
/// APNs and an Android app gets the same title, body and data.
///
/// The body is `{"message": {...}}` (with `"validate_only": true` for a dry run), members written
/// with sorted keys:
/// - `token`: the registration token.
/// - `notification`: `{title, body}` from `aps.alert` (a string alert is the body); left out when
///   the alert has neither, as for a background push, which makes a data-only message.
/// - `data`: the members beside `aps`, every value a string: strings as they are, anything else
///   as its compact JSON. Keys FCM reserves are refused (`reservedDataKeys`).
/// - `apns`: `headers` with `apns-push-type`, `apns-priority` (always, as the APNs path sends it),
///   `apns-collapse-id` and `apns-expiration` when set, all strings; `payload`, the whole APNs
///   payload, `aps` included.
/// - `android`: `priority` (`androidPriority`), `collapse_key` from the collapse id, and `ttl`
///   (`"<seconds>s"`) from the expiration: the seconds left until it, 0 for "try once" or a time
///   already past, at most FCM's 28 days.
///
/// Only alerts and background pushes can be carried (`unsupportedPushTypes`). FCM allows 4,096
/// bytes of payload: counted here as the compact JSON of `notification` plus that of `data`, what
/// FCM delivers to Android; the `apns` payload is held to APNs' own limit when the request is built
/// (`APNsRequest.validate`), and the envelope (token, headers) is not payload.
package struct FCMMessage: Sendable {
    /// FCM's payload limit, in bytes.
    package static let maximumPayloadBytes = 4096
    /// The longest `ttl` FCM accepts: 28 days, in seconds.
    package static let maximumTimeToLive = 28 * 24 * 3600
    /// The `data` keys FCM keeps for itself.
    package static let reservedDataKeys: Set<String> = ["from", "notification", "message_type"]
    /// The `data` key prefixes FCM keeps for itself.
    package static let reservedDataKeyPrefixes = ["google.", "gcm."]
    /// The reserved keys and prefixes, for messages.
    static let reservedDataKeysPhrase =
        reservedDataKeys.sorted().map { "\"\($0)\"" }.joined(separator: ", ") + " and keys starting with "
        + reservedDataKeyPrefixes.map { "\"\($0)\"" }.joined(separator: " or ")

    /// The push types FCM cannot carry, and why: each needs a token of its own that only APNs
    /// issues (a Live Activity's push token, PushKit's, a widget's or a control's), addresses
    /// something other than the app (a watch complication, a File Provider extension, a location
    /// extension), or is not an app's push at all (MDM).
    package static let unsupportedPushTypes: [APNsPushType: String] = [
        .liveactivity: "Live Activities are updated with their own APNs push tokens or broadcast channels, "
            + "which FCM does not carry",
        .voip: "VoIP pushes need the PushKit token, which only APNs knows",
        .pushtotalk: "push-to-talk pushes need the PushKit token, which only APNs knows",
        .complication: "complication pushes address the watch app's PushKit token, which only APNs knows",
        .fileprovider: "File Provider pushes address the extension's PushKit token, which only APNs knows",
        .location: "location pushes need the location push token, which only APNs knows",
        .widgets: "widget pushes need WidgetKit's push token, which only APNs knows",
        .controls: "control pushes need WidgetKit's push token, which only APNs knows",
        .mdm: "MDM pushes go to a device's MDM enrollment, not to an app",
    ]

    /// The registration token the message goes to.
    package let token: FCMDeviceToken
    /// The `message` object.
    package let message: JSONValue
    /// Whether FCM is asked only to check the message (`validate_only`), not to deliver it.
    package let validateOnly: Bool
    /// The request body: `{"message": ...}`, plus `"validate_only": true` when asked.
    package let body: Data

    /// Builds the message for `token` from `request` and the payload APNs would be sent.
    /// - Parameters:
    ///   - payload: the body the APNs path sends this device: `request.body(for:)`, which for an
    ///     encrypted send is the placeholder with this device's sealed content.
    ///   - now: the time the expiration is counted from, for `android.ttl`.
    /// - Throws: `FCMMessageError` (65): a push type FCM cannot carry, a reserved data key, a
    ///   payload over FCM's limit, or a payload without an `aps` object.
    package init(
        token: FCMDeviceToken, request: APNsRequest, payload: Data, now: Date, validateOnly: Bool = false
    ) throws(FCMMessageError) {
        if let why = Self.unsupportedPushTypes[request.pushType] {
            throw .unsupportedPushType(request.pushType, why: why)
        }
        let parsed: JSONValue
        do throws(JSONSyntaxError) {
            parsed = try JSONValue.parse(payload)
        } catch {
            throw .unreadablePayload("it is not valid JSON (\(error.detail))")
        }
        guard let root = parsed.objectValue else { throw .unreadablePayload("it is not a JSON object") }
        guard let aps = root["aps"]?.objectValue else { throw .unreadablePayload("it has no \"aps\" object") }

        var message: [String: JSONValue] = ["token": .string(token.text)]
        var notification: [String: JSONValue] = [:]
        switch aps["alert"] {
        case .string(let body)?: notification["body"] = .string(body)
        case .object(let alert)?:
            if let title = alert["title"]?.stringValue { notification["title"] = .string(title) }
            if let body = alert["body"]?.stringValue { notification["body"] = .string(body) }
        default: break
        }
        // The image's URL (`PushSpecification.imageKey`): FCM's own field, which Android shows.
        if !notification.isEmpty, let image = root[PushSpecification.imageKey]?.stringValue {
            notification["image"] = .string(image)
        }
        var data: [String: JSONValue] = [:]
        for (key, value) in root where key != "aps" {
            if Self.isReservedDataKey(key) { throw .reservedDataKey(key) }
            data[key] = .string(value.stringValue ?? value.serializedString())
        }
        let payloadSize =
            (notification.isEmpty ? 0 : JSONValue.object(notification).serialized().count)
            + (data.isEmpty ? 0 : JSONValue.object(data).serialized().count)
        if payloadSize > Self.maximumPayloadBytes {
            throw .tooLarge(size: payloadSize, limit: Self.maximumPayloadBytes)
        }
        if !notification.isEmpty { message["notification"] = .object(notification) }
        if !data.isEmpty { message["data"] = .object(data) }

        var headers: [String: JSONValue] = [
            "apns-push-type": .string(request.pushType.rawValue),
            "apns-priority": .string(String(request.priority.rawValue)),
        ]
        if let collapseID = request.collapseID { headers["apns-collapse-id"] = .string(collapseID) }
        if let expiration = request.expiration { headers["apns-expiration"] = .string(String(expiration)) }
        message["apns"] = ["headers": .object(headers), "payload": .object(root)]

        let level = aps["interruption-level"]?.stringValue.flatMap(InterruptionLevel.init(rawValue:))
        var android: [String: JSONValue] = [
            "priority": .string(Self.androidPriority(priority: request.priority, interruptionLevel: level))
        ]
        if let collapseID = request.collapseID { android["collapse_key"] = .string(collapseID) }
        if let expiration = request.expiration {
            android["ttl"] = .string("\(Self.timeToLive(expiration: expiration, now: now))s")
        }
        message["android"] = .object(android)

        self.token = token
        self.message = .object(message)
        self.validateOnly = validateOnly
        var envelope: [String: JSONValue] = ["message": self.message]
        if validateOnly { envelope["validate_only"] = true }
        body = JSONValue.object(envelope).serialized()
    }

    /// `android.priority`: `HIGH` for an alert whose interruption level is time-sensitive or
    /// critical and whose APNs priority is 10, `NORMAL` for everything else.
    ///
    /// Android's high priority wakes a dozing phone at once and is meant for what the user must see
    /// now; Android demotes apps whose high-priority messages do not lead to something shown. APNs'
    /// priority 10 is the default of every alert, not a choice the user made, so it alone does not
    /// make a message urgent; the interruption level is that choice (and is what quiet hours let
    /// through, `InterruptionLevel.breaksThroughQuietHours`). A priority of 5 or 1 asks to spare the
    /// battery, which wins over the level.
    package static func androidPriority(priority: APNsPriority, interruptionLevel: InterruptionLevel?) -> String {
        guard priority == .immediate, interruptionLevel?.breaksThroughQuietHours == true else { return "NORMAL" }
        return "HIGH"
    }

    /// The seconds from `now` to `expiration` (UNIX seconds), as `android.ttl` carries them: 0 for
    /// 0 (try once, do not store) or a time already past, at most `maximumTimeToLive`.
    package static func timeToLive(expiration: Int, now: Date) -> Int {
        guard expiration > 0 else { return 0 }
        let left = expiration - Int(now.timeIntervalSince1970.rounded(.down))
        return min(max(left, 0), maximumTimeToLive)
    }

    /// Whether FCM keeps `key` for itself: `from`, `notification`, `message_type`, or a key
    /// starting with `google.` or `gcm.` (compared as written: FCM's reserved words are lowercase).
    package static func isReservedDataKey(_ key: String) -> Bool {
        reservedDataKeys.contains(key) || reservedDataKeyPrefixes.contains { key.hasPrefix($0) }
    }

    /// The send URL for the project `projectID` at `baseURL` (`https://host[:port]`, a trailing
    /// slash tolerated).
    package static func url(baseURL: String, projectID: String) -> String {
        (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + "/v1/projects/" + projectID
            + "/messages:send"
    }

    /// The request headers, names lowercase, for the access token `accessToken`.
    package static func headers(accessToken: String) -> [(name: String, value: String)] {
        [("authorization", "Bearer " + accessToken), ("content-type", "application/json; charset=UTF-8")]
    }

    /// The request for the transport: this message for `projectID` at `baseURL`, tagged `tag`.
    package func http2Request(baseURL: String, projectID: String, accessToken: String, tag: Int) -> HTTP2Request {
        HTTP2Request(
            url: Self.url(baseURL: baseURL, projectID: projectID), headers: Self.headers(accessToken: accessToken),
            body: body, tag: tag)
    }
}
