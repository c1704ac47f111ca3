/// One device a run delivers to.
package struct DeliveryTarget: Sendable, Equatable {
    /// Which of a device's tokens a target addresses.
    package enum TokenKind: String, Sendable, Equatable {
        /// The APNs device token (`didRegisterForRemoteNotificationsWithDeviceToken`).
        case device
        /// The device's ActivityKit push-to-start token, for starting a Live Activity. A 410 for
        /// it clears only that token; the device and its device token stay.
        case pushToStart = "push-to-start"
    }

    /// The FCM registration token, for a target of an FCM device; `nil` for APNs.
    package var fcmToken: FCMDeviceToken? { token.fcmToken }

    /// The registry's device id; `nil` for a token given with `--token` (not in the registry).
    package let deviceID: String?
    /// The token the request goes to, a device token or a push-to-start token as `tokenKind` says.
    package let token: DeviceToken
    /// The environment recorded in the registry; `nil` when not yet known.
    package let recordedEnvironment: APNsEnvironment?
    /// Which token of the device `token` is.
    package let tokenKind: TokenKind
    /// The device's IANA time zone, when the registry knows it (quiet hours in the device's zone).
    package let timeZone: String?
    /// For a scheduled send (`--due briefing`): the device-local day it serves, recorded on
    /// delivery so the device does not get that day's again.
    package let scheduledDay: LocalDate?
    /// The device's content key, which an encrypted send seals the payload with; `nil` when it has
    /// none (an encrypted send then refuses the device) or for a `--token` target.
    package let contentKey: ContentKey?
    /// Why the device's record cannot be used (the registry holds it, but a field of it cannot be
    /// read): the send refuses the device with this reason, and sends it nothing. `nil` for every
    /// usable device.
    package let unusableRecord: String?

    /// A target; its token is the device token unless `tokenKind` says otherwise.
    package init(
        deviceID: String?, token: DeviceToken, recordedEnvironment: APNsEnvironment?, tokenKind: TokenKind = .device,
        timeZone: String? = nil, scheduledDay: LocalDate? = nil, contentKey: ContentKey? = nil,
        unusableRecord: String? = nil
    ) {
        self.unusableRecord = unusableRecord
        self.deviceID = deviceID
        self.token = token
        self.recordedEnvironment = recordedEnvironment
        self.tokenKind = tokenKind
        self.timeZone = timeZone
        self.scheduledDay = scheduledDay
        self.contentKey = contentKey
    }
}
