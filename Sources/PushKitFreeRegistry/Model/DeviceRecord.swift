#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// What the registry knows about one app install: its current APNs token and what the app said
/// about itself when it registered.
///
/// Fields a newer version of the tools writes are kept in `otherFields` and written back unchanged.
package struct DeviceRecord: Sendable, Equatable {
    /// The current APNs device token; a rotated token replaces it.
    package var token: DeviceToken
    /// The device's ActivityKit push-to-start token (iOS 17.2+), for starting Live Activities;
    /// `nil` until the app registers one. Same environment as `token`, but a token of its own: a
    /// 410 for it clears only this field.
    package var pushToStartToken: DeviceToken?
    /// Which APNs environment the token belongs to; `nil` until the app or a delivery says.
    package var environment: APNsEnvironment?
    /// The device's user-visible name, e.g. "Sven's iPhone".
    package var name: String?
    /// The hardware model, e.g. "iPhone15,2".
    package var model: String?
    /// The OS version, e.g. "17.4.1".
    package var osVersion: String?
    /// The app's version, e.g. "2.3.0".
    package var appVersion: String?
    /// Named groups the device belongs to, for sending to several devices at once.
    package var groups: [String]
    /// When this device id was first registered; `nil` for entries upgraded from the flat map.
    package var registeredAt: Date?
    /// When the app last registered (with this or an earlier token).
    package var lastSeenAt: Date?
    /// When a notification was last accepted by APNs for this device (recorded by `send-push`).
    package var lastDeliveredAt: Date?
    /// The device's IANA time zone (`America/New_York`) when the app said; quiet hours can be
    /// evaluated in it (`quiet_hours.device_timezone`).
    package var timeZone: String?
    /// When the device wants its daily briefing, and when it last got one.
    package var briefing: BriefingSettings?
    /// The install's content key, which encrypted sends seal the payload with; `nil` until the app
    /// or an operator gives one. It belongs to the install, so a new token keeps it.
    package var contentKey: ContentKey?
    /// Fields this version does not know, preserved on rewrite.
    package var otherFields: [String: JSONValue]

    /// A record with `token`; everything else unknown unless given.
    package init(
        token: DeviceToken, environment: APNsEnvironment? = nil, name: String? = nil, model: String? = nil,
        osVersion: String? = nil, appVersion: String? = nil, groups: [String] = [], registeredAt: Date? = nil,
        lastSeenAt: Date? = nil, lastDeliveredAt: Date? = nil, pushToStartToken: DeviceToken? = nil,
        timeZone: String? = nil, briefing: BriefingSettings? = nil, contentKey: ContentKey? = nil,
        otherFields: [String: JSONValue] = [:]
    ) {
        self.token = token
        self.pushToStartToken = pushToStartToken
        self.environment = environment
        self.name = name
        self.model = model
        self.osVersion = osVersion
        self.appVersion = appVersion
        self.groups = groups
        self.registeredAt = registeredAt
        self.lastSeenAt = lastSeenAt
        self.lastDeliveredAt = lastDeliveredAt
        self.timeZone = timeZone
        self.briefing = briefing
        self.contentKey = contentKey
        self.otherFields = otherFields
    }

    /// The latest sign of life from the app: `lastSeenAt`, else `registeredAt`.
    package var lastRegisteredAt: Date? { lastSeenAt ?? registeredAt }

    /// Apple's 410 rule: a token APNs called unregistered at `unregisteredAt` stays when the app
    /// registered again after that time (it may have been reinstalled). No timestamp, or no known
    /// registration time: not registered again.
    package func registeredAgain(after unregisteredAt: Date?) -> Bool {
        guard let unregisteredAt, let seen = lastRegisteredAt else { return false }
        return seen > unregisteredAt
    }
}
