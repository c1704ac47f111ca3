import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends one Live Activity update or end to a broadcast channel: one request, whatever the number
/// of subscribed devices, with the pipeline's retries (`SingleRequestDelivery`).
///
/// No device is selected and the registry is not touched. The notification policy's hold-backs
/// (quiet hours with `skip`, the frequency cap) concern devices and are not applied.
package struct BroadcastSender: Sendable {
    /// The hosts, key and environment to send with.
    package let configuration: Configuration
    /// Retries, back-off and timeouts for the request.
    package let deliveryPolicy: DeliveryPolicy
    private let transports: any HTTP2TransportSource

    /// A sender for the app `configuration` names, with clients from `transports`.
    package init(configuration: Configuration, deliveryPolicy: DeliveryPolicy, transports: any HTTP2TransportSource) {
        self.configuration = configuration
        self.deliveryPolicy = deliveryPolicy
        self.transports = transports
    }

    /// The broadcast of `notification` (a Live Activity update or end) to `target`.
    ///
    /// Apple asks for `apns-expiration: 0` on a channel that stores no message; a channel recorded
    /// with storage `none` gets 0 when no expiration was given (and a warning when another one was:
    /// APNs may refuse it).
    /// - Throws: `PayloadError` (65) for a push type other than liveactivity, or a start (a
    ///   broadcast cannot start an activity: starting needs a device's push-to-start token).
    package static func request(
        _ notification: APNsRequest, to target: BroadcastChannels.Target, warn: (String) -> Void
    ) throws(PayloadError) -> BroadcastRequest {
        guard notification.pushType == .liveactivity else {
            throw .invalid("a broadcast carries push type liveactivity, not \(notification.pushType.rawValue)")
        }
        if let event = try? JSONValue.parse(notification.payload)["aps"]?["event"]?.stringValue, event == "start" {
            throw .invalid(
                "a broadcast cannot start a Live Activity (starting needs each device's push-to-start token); send the start to devices with \(setting: .inputPushChannel) to subscribe them to the channel"
            )
        }
        var notification = notification
        if target.record?.storagePolicy == ChannelStoragePolicy.none {
            switch notification.expiration {
            case nil: notification.expiration = 0
            case 0?: break
            case let other?:
                warn(
                    "channel \(target.label) stores no message: Apple asks for expiration 0 on such channels, "
                        + "not \(other); APNs may refuse it")
            }
        }
        return BroadcastRequest(notification: notification, channelID: target.id)
    }

    /// The request as `--dry-run` shows it: method and URL, headers with the provider token
    /// redacted, and the payload.
    package func dryRun(_ request: BroadcastRequest, to target: BroadcastChannels.Target) -> String {
        let url = configuration.baseURL(for: target.environment).value
        let rendered = request.http2Request(baseURL: url, providerToken: "<provider token>")
        var text = "POST \(rendered.url)  (channel \(target.label), \(target.environment.rawValue))\n"
        text += rendered.headers.map { "\($0.name): \($0.value)\n" }.joined()
        text += "\n" + String(decoding: request.notification.payload, as: UTF8.self) + "\n\n"
        return text + "dry run: 1 request not sent\n"
    }

    /// Sends `request` to the push host of the channel's environment.
    /// - Throws: `ProviderKeyError` (66/78), `ConfigurationError` (78), the transport source's error
    ///   (69); APNs' answers are in the report.
    package func send(
        _ request: BroadcastRequest, to target: BroadcastChannels.Target, warn: @escaping (String) -> Void
    ) throws -> BroadcastReport {
        let started = ContinuousClock.now
        let baseURL = configuration.baseURL(for: target.environment).value
        let outcome = try SingleRequestExchange(
            configuration: configuration, deliveryPolicy: deliveryPolicy, transports: transports
        ).send(warn: warn) { token in request.http2Request(baseURL: baseURL, providerToken: token) }
        return BroadcastReport(target: target, outcome: outcome, seconds: started.secondsElapsed)
    }
}
