#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// The JSON the endpoint answers with. Device tokens are always masked: the endpoint is reached
/// over a network, and a client that registered a token already knows it.
package enum EndpointJSON {
    /// How a response shows a device token.
    package enum TokenDisplay: Sendable {
        /// The first 8 and last 4 hex digits, `740f4707…78ad` (`DeviceToken.masked`): the native routes.
        case masked
        /// The first 16 hex digits and `...`, `740f4707bebcf74f...`: OpenClaw's routes (`/api/v1/...`),
        /// as that service shows tokens.
        case openClaw

        /// `token` as this display shows it.
        package func text(_ token: DeviceToken) -> String {
            if token.isUnreadable { return token.masked }
            switch self {
            case .masked: return token.masked
            case .openClaw: return String(token.text.prefix(16)) + "..."
            }
        }
    }

    /// A device as `/api/v1/devices` lists it: every field present, `null` when unknown; `transport`
    /// is `apns` or `fcm`, and `environment` is always `null` for `fcm`.
    package static func device(_ device: RegisteredDevice, tokens: TokenDisplay = .masked) -> JSONValue {
        let record = device.record
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func time(_ value: Date?) -> JSONValue { value.map { .string(ISO8601Timestamp.format($0)) } ?? .null }
        return .object([
            "device_id": .string(device.id),
            "token": .string(tokens.text(record.token)),
            "transport": .string(record.token.transport.rawValue),
            "device_name": text(record.name),
            "device_model": text(record.model),
            "os_version": text(record.osVersion),
            "app_version": text(record.appVersion),
            "environment": text(record.environment?.rawValue),
            "groups": .array(record.groups.map(JSONValue.string)),
            "registered_at": time(record.registeredAt),
            "last_seen_at": time(record.lastSeenAt),
            "last_delivered_at": time(record.lastDeliveredAt),
        ])
    }

    /// `{"count": N, "devices": [...]}`.
    package static func deviceList(_ devices: [RegisteredDevice], tokens: TokenDisplay = .masked) -> JSONValue {
        .object([
            "count": .number(Double(devices.count)),
            "devices": .array(devices.map { device($0, tokens: tokens) }),
        ])
    }

    /// One device's outcome: `{"device_id", "token", "success", "reason", "apns_id"}`; policy skips
    /// count as not sent (`success` false, the reason says why).
    package static func result(_ result: DeliveryResult, tokens: TokenDisplay = .masked) -> JSONValue {
        let success = result.outcome == .delivered
        return .object([
            "device_id": result.target.deviceID.map(JSONValue.string) ?? .null,
            "token": .string(tokens.text(result.target.token)),
            "success": .bool(success),
            "reason": success ? .null : .string(reason(of: result)),
            "apns_id": result.apnsID.map(JSONValue.string) ?? .null,
        ])
    }

    /// The ids of the devices APNs took the notification for, sorted: what a send answer that
    /// counts them (`delivered`, `devices_notified`) lists beside the count as `delivered_to`, so
    /// that the sender sees whom a name reached.
    package static func deliveredTo(_ report: DeliveryReport) -> [String] {
        report.results.compactMap { $0.outcome == .delivered ? $0.target.deviceID : nil }.sorted()
    }

    /// APNs' reason, else the transport's message, else the outcome.
    static func reason(of result: DeliveryResult) -> String {
        result.reason ?? (result.status > 0 ? "HTTP \(result.status)" : result.outcome.rawValue)
    }

    /// `{"sent": N, "results": [...]}`, as the OpenClaw notification service answers: N is the number
    /// of devices attempted (its `len(results)`), each listed with whether it took the notification.
    package static func sendReport(_ report: DeliveryReport, tokens: TokenDisplay = .masked) -> JSONValue {
        .object([
            "sent": .number(Double(report.results.count)),
            "results": .array(report.results.map { result($0, tokens: tokens) }),
        ])
    }
}
