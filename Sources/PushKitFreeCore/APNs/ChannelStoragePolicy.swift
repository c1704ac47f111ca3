/// A broadcast channel's `message-storage-policy`, fixed when the channel is created.
///
/// Apple: 0 stores no message (a device that was offline gets nothing), 1 stores the most recent
/// one (a device that comes online, or subscribes late, gets the latest update).
package enum ChannelStoragePolicy: Int, Sendable, CaseIterable {
    /// 0, "No Message Stored".
    case none = 0
    /// 1, "Most Recent Message Stored".
    case latest = 1

    /// The word the tools use: `none` or `latest`.
    package var name: String {
        switch self {
        case .none: "none"
        case .latest: "latest"
        }
    }

    /// Parses `none`/`latest` (or Apple's numbers `0`/`1`).
    package init?(name: String) {
        switch name.lowercased() {
        case "none", "0": self = .none
        case "latest", "1": self = .latest
        default: return nil
        }
    }
}
