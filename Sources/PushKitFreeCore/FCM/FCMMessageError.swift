/// Why a notification cannot be sent through FCM as it would be sent through APNs (exit 65): a
/// push type FCM cannot carry, a custom data key FCM reserves, or a message over its size limit.
package enum FCMMessageError: SettingError, Equatable {
    /// A push type FCM does not carry to an app (a Live Activity, a VoIP push, …); `why` says why.
    case unsupportedPushType(APNsPushType, why: String)
    /// A custom data key FCM keeps for itself (`from`, `google.…`).
    case reservedDataKey(String)
    /// The message's payload is `size` bytes, over `limit`.
    case tooLarge(size: Int, limit: Int)
    /// The APNs payload it is built from is not a JSON object with an `aps` object.
    case unreadablePayload(String)

    /// Always 65: the notification is bad input for this device.
    package var exitStatus: ExitStatus { .dataError }

    /// The message, naming the setting at fault.
    package var settingMessage: SettingMessage? {
        switch self {
        case .unsupportedPushType(let type, let why):
            "\(setting: .pushType) \(type.rawValue) cannot be sent to an FCM registration token: \(why)"
        case .reservedDataKey(let key):
            "\(setting: .data) key \"\(APNsResponse.escapingControlCharacters(key))\" is reserved by FCM (\(FCMMessage.reservedDataKeysPhrase)); rename it"
        case .tooLarge(let size, let limit):
            "the FCM message's notification and \(setting: .data) are \(size) bytes, over FCM's \(limit)-byte limit"
        case .unreadablePayload(let detail):
            "the payload cannot be sent through FCM: \(detail)"
        }
    }

    /// The message in the core's words.
    package var description: String { settingMessage?.description ?? "" }
}
