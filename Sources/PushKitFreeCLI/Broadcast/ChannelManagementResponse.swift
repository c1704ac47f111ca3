import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the channel management API answered one `ChannelManagementRequest`.
package enum ChannelManagementResponse: Sendable, Equatable {
    /// 201: the new channel's id (`apns-channel-id`).
    case created(channelID: String)
    /// 200 to a read: the channel's configuration. `storagePolicy` is `nil` when APNs sent a value
    /// this version does not know.
    case channel(storagePolicy: ChannelStoragePolicy?, pushType: String?)
    /// 204: the channel is gone.
    case deleted
    /// 200 to a list: every channel id of the app in this environment.
    case channels([String])
    /// Any other status, or a success without what it must carry (then the reason is
    /// `Unknown<status>`).
    case rejected(APNsRejection)

    /// Interprets `answer` as the answer to `operation`. An answer without `apns-request-id` is
    /// still read; the id is reported when present.
    package init(_ answer: HTTP2Answer, to operation: ChannelManagementRequest.Operation) {
        let json = try? JSONValue.parse(answer.body)
        switch (operation, answer.status) {
        case (.create, 201), (.create, 200):
            if let id = answer.headers["apns-channel-id"], !id.isEmpty {
                self = .created(channelID: id)
                return
            }
        case (.read, 200):
            let policy = json?["message-storage-policy"].flatMap(Self.storagePolicy)
            self = .channel(storagePolicy: policy, pushType: json?["push-type"]?.stringValue)
            return
        case (.delete, 204), (.delete, 200):
            self = .deleted
            return
        case (.list, 200):
            if let ids = json?["channels"]?.arrayValue {
                self = .channels(ids.compactMap(\.stringValue))
                return
            }
        default:
            break
        }
        // Errors carry APNs' usual `{"reason": ...}`.
        let given = json?["reason"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let reason = given.map(APNsResponse.escapingControlCharacters) ?? "Unknown\(answer.status)"
        self = .rejected(APNsRejection(status: answer.status, reason: APNsReason(rawValue: reason)))
    }

    /// Apple documents a number; a numeric string is read too.
    private static func storagePolicy(_ value: JSONValue) -> ChannelStoragePolicy? {
        if let number = value.integerValue { return ChannelStoragePolicy(rawValue: number) }
        if let text = value.stringValue, let number = Int(text) { return ChannelStoragePolicy(rawValue: number) }
        return nil
    }
}
