import PushKitFreeCore
/// One registration as an app (or an operator) makes it: a device id, its current token, and what
/// the app tells about itself. `nil` fields leave what the registry already knows unchanged.
package struct DeviceRegistration: Sendable, Equatable {
    /// The app's own id for this install; the registry's key.
    package var deviceID: String
    /// The token the app got: from `didRegisterForRemoteNotificationsWithDeviceToken` (APNs), or
    /// Firebase Messaging's registration token (FCM). One device, one token, one transport: an app
    /// that holds both registers twice, under two ids.
    package var token: DeviceToken
    /// The APNs environment of `token`, when the app or the operator says; never kept for an FCM
    /// token, which has none.
    package var environment: APNsEnvironment?
    /// The device's name.
    package var name: String?
    /// The hardware model.
    package var model: String?
    /// The OS version.
    package var osVersion: String?
    /// The app's version.
    package var appVersion: String?
    /// The groups to put the device in, replacing its current ones; `nil` keeps them.
    package var groups: [String]?
    /// The device's ActivityKit push-to-start token; `nil` keeps the one registered before.
    package var pushToStartToken: DeviceToken?
    /// The device's IANA time zone; `nil` keeps the one registered before. Not checked here: the
    /// front ends check it against the tz database (`BriefingSettings.validatedTimeZone`).
    package var timeZone: String?
    /// The install's content key for encrypted sends; `nil` keeps the one registered before.
    package var contentKey: ContentKey?

    /// The most characters (Unicode scalars, as JSON Schema's `maxLength` counts them) that
    /// `register-apns serve` takes in a device name, model, OS or app version, group name or agent
    /// display name from the network (docs/openapi.yaml states it). Control characters are allowed
    /// (human-readable output escapes them). The command line, an operator's, has no such limit;
    /// listings shorten long values.
    package static let endpointTextLimit = 256

    /// Checks `deviceID` and `groups` (see `validateDeviceID` and `validateGroup`), and that a
    /// push-to-start token goes with an APNs token. An `environment` given with an FCM token is
    /// dropped: apps send one whatever their token.
    /// - Throws: `RegistryError.invalidInput` (exit 65).
    package init(
        deviceID: String, token: DeviceToken, environment: APNsEnvironment? = nil, name: String? = nil,
        model: String? = nil, osVersion: String? = nil, appVersion: String? = nil, groups: [String]? = nil,
        pushToStartToken: DeviceToken? = nil, timeZone: String? = nil, contentKey: ContentKey? = nil
    ) throws(RegistryError) {
        try Self.validateDeviceID(deviceID)
        if let groups {
            for group in groups { try Self.validateGroup(group) }
        }
        if pushToStartToken != nil, token.transport != .apns {
            throw RegistryError.invalidInput(Self.pushToStartWithoutAPNs)
        }
        self.deviceID = deviceID
        self.token = token
        self.environment = token.transport == .apns ? environment : nil
        self.name = name
        self.model = model
        self.osVersion = osVersion
        self.appVersion = appVersion
        self.groups = groups.map(Self.removingDuplicates)
        self.pushToStartToken = pushToStartToken
        self.timeZone = timeZone
        self.contentKey = contentKey
    }

    /// Why a push-to-start token is refused beside an FCM token.
    package static let pushToStartWithoutAPNs =
        "a push-to-start token is for Live Activities, which only APNs starts; this device's token is an FCM "
        + "registration token (register the APNs token under its own device id for Live Activities)"

    /// A device id must be non-empty and free of control characters (it is printed one per line).
    package static func validateDeviceID(_ deviceID: String) throws(RegistryError) {
        if deviceID.isEmpty { throw RegistryError.invalidInput("device id is empty") }
        if deviceID.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            throw RegistryError.invalidInput(
                "device id \"\(deviceID.debugDescription.dropFirst().dropLast())\" contains a control character")
        }
    }

    /// A group name must be non-empty and free of control characters and commas (lists are comma-separated).
    package static func validateGroup(_ group: String) throws(RegistryError) {
        if group.isEmpty { throw RegistryError.invalidInput("group name is empty") }
        if group.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f || $0 == "," }) {
            throw RegistryError.invalidInput(
                "group name \"\(group.debugDescription.dropFirst().dropLast())\" contains a comma or control character")
        }
    }

    /// Why `text` is too long to take as `what`, or `nil` when it has at most `limit` Unicode scalars.
    package static func lengthProblem(_ text: String, named what: String, limit: Int) -> String? {
        let count = text.unicodeScalars.count
        guard count > limit else { return nil }
        return "\(what) is \(count) characters long; at most \(limit) are accepted"
    }

    private static func removingDuplicates(_ groups: [String]) -> [String] {
        var seen = Set<String>()
        return groups.filter { seen.insert($0).inserted }
    }
}
