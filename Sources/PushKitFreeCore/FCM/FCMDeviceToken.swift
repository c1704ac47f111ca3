/// An FCM registration token: what the Firebase Messaging SDK gives an app, for Android and for
/// iOS apps that register through Firebase.
///
/// Google documents no format, only that tokens are opaque and may change length. Every token seen
/// has the same shape, which is what is checked here: URL-safe base64 characters (`A-Z a-z 0-9 -
/// _`) with exactly one colon, `<instance id>:APA91b…`, 140 to 200 characters today; 100 to 4,096
/// characters are accepted so that a longer token does not need a new version. The shape also
/// tells a registration token from an APNs token (hex, no colon).
package struct FCMDeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The fewest characters accepted.
    package static let minimumLength = 100
    /// The most characters accepted.
    package static let maximumLength = 4096

    /// The token as the app gave it; case matters.
    package let text: String

    /// Validates `text`.
    /// - Throws: `FCMDeviceTokenError` (exit 65) saying what is wrong, without the token itself.
    package init(validating text: String) throws(FCMDeviceTokenError) {
        var colons = 0
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            case UInt8(ascii: ":"):
                colons += 1
            default:
                throw FCMDeviceTokenError.badCharacter(in: text, utf8Offset: offset)
            }
        }
        // Every byte is ASCII from here on: the byte count is the character count.
        let length = text.utf8.count
        guard length >= Self.minimumLength, length <= Self.maximumLength else {
            throw FCMDeviceTokenError.badLength(length)
        }
        guard colons == 1 else { throw FCMDeviceTokenError.badColons(colons) }
        guard text.utf8.first != UInt8(ascii: ":"), text.utf8.last != UInt8(ascii: ":") else {
            throw FCMDeviceTokenError(
                "registration token has nothing on one side of its ':'; FCM tokens look like <instance id>:APA91b…")
        }
        self.text = text
    }

    /// A token `DeviceToken` already validated.
    init(checked text: String) { self.text = text }

    /// Whether `text` has a registration token's shape (a cheap test for telling token kinds apart).
    package static func hasShape(_ text: String) -> Bool {
        (try? FCMDeviceToken(validating: text)) != nil
    }

    /// The first 8 and last 4 characters, `dK3x9aZQ…Ab_c`, as `DeviceToken.masked` shows APNs
    /// tokens: enough to tell tokens apart in human output without printing a deliverable address.
    package var masked: String {
        String(text.prefix(8)) + "…" + String(text.suffix(4))
    }

    /// The whole token.
    package var description: String { text }

    /// Orders tokens by their text.
    package static func < (lhs: FCMDeviceToken, rhs: FCMDeviceToken) -> Bool { lhs.text < rhs.text }
}
