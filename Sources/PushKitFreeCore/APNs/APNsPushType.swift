/// The `apns-push-type` header: what kind of notification a request carries.
///
/// Each type except alert, background and mdm needs its own topic: the bundle id plus
/// `topicSuffix` (Apple answers `DeviceTokenNotForTopic` otherwise).
package enum APNsPushType: String, Sendable, CaseIterable, Hashable {
    case alert
    case background
    case complication
    case controls
    case fileprovider
    case liveactivity
    case location
    case mdm
    case pushtotalk
    case voip
    case widgets

    /// What follows the bundle id in `apns-topic` for this type; empty for alert, background and mdm.
    package var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .complication: ".complication"
        case .controls: ".push-type.controls"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .voip: ".voip"
        case .widgets: ".push-type.widgets"
        }
    }

    /// The topic a request of this type must carry for the app `bundleID`.
    package func topic(forBundleID bundleID: String) -> String {
        bundleID + topicSuffix
    }

    /// The largest payload APNs accepts for this type, in bytes: 5120 for voip, 4096 otherwise.
    package var maximumPayloadSize: Int {
        self == .voip ? 5120 : 4096
    }
}
