import PushKitFreeCore

extension SendSetting {
    /// The command-line flag that sets it, as the tools' messages name it.
    package var flag: String {
        switch self {
        case .threadID: "--thread-id"
        case .interruptionLevel: "--interruption-level"
        case .relevanceScore: "--relevance-score"
        case .targetContentID: "--target-content-id"
        case .contentAvailable: "--content-available"
        case .payloadFile: "--payload-file"
        case .pushType: "--push-type"
        case .collapseID: "--collapse-id"
        case .apnsID: "--apns-id"
        case .liveActivity: "--live-activity"
        case .contentState: "--content-state"
        case .staleDate: "--stale-date"
        case .dismissalDate: "--dismissal-date"
        case .attributesType: "--attributes-type"
        case .minimumInterval: "--min-interval"
        case .placeholderTitle: "--placeholder-title"
        case .placeholderBody: "--placeholder-body"
        case .image: "--image"
        case .inputPushToken: "--input-push-token"
        case .inputPushChannel: "--input-push-channel"
        case .title, .subtitle, .body, .badge, .sound, .category, .data, .priority, .expiration, .timestamp,
            .attributes, .channel,
            .retries, .timeout, .encrypt, .volume, .withdraw:
            "--" + rawValue
        }
    }
}
