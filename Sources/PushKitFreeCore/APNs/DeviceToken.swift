/// A device's push token: an APNs device token (hex text, stored lowercase) or an FCM
/// registration token (its text as the app gave it); `transport` says which.
///
/// Apple says the length of an APNs token varies (32 bytes today) and must not be hard-coded, so any
/// even number of hex digits from 16 to 256 bytes is accepted; anything else is refused with a
/// message naming the length or the first character that is not hex. An FCM token has the shape
/// `FCMDeviceToken` checks. The two shapes cannot be confused: an FCM token always holds one colon,
/// which is not hex.
package struct DeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The fewest bytes accepted.
    package static let minimumBytes = 16
    /// The most bytes accepted.
    package static let maximumBytes = 256

    /// The token as sent: lowercase hex for APNs (the form APNs' `/3/device/<token>` path and the
    /// state file use), the registration token as given for FCM.
    package let text: String
    /// Which service delivers to this token.
    package let transport: PushTransport

    /// Validates `text` as an APNs token (hex in either case) and stores it lowercase.
    /// - Throws: `DeviceTokenError` (exit 65) saying what is wrong.
    package init(validating text: String) throws(DeviceTokenError) {
        var hasUppercase = false
        var badOffset: Int?
        var utf8 = text
        utf8.withUTF8 { bytes in
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "F"): hasUppercase = true
                default:
                    badOffset = index
                    return
                }
            }
        }
        if let badOffset { throw DeviceTokenError.badCharacter(in: text, utf8Offset: badOffset) }
        let digits = text.utf8.count
        guard digits % 2 == 0, digits >= 2 * Self.minimumBytes, digits <= 2 * Self.maximumBytes else {
            throw DeviceTokenError.badLength(digits)
        }
        self.text = hasUppercase ? text.lowercased() : text
        transport = .apns
    }

    /// Validates `text` as a token of `transport`, or, when `transport` is `nil`, of the transport
    /// its shape names: with a colon it is an FCM registration token, else an APNs token (so a
    /// mistyped APNs token still gets the APNs message).
    /// - Throws: `DeviceTokenError` (exit 65) saying what is wrong, without the token itself.
    package init(validating text: String, transport: PushTransport?) throws(DeviceTokenError) {
        switch transport ?? (text.utf8.contains(UInt8(ascii: ":")) ? .fcm : .apns) {
        case .apns: try self.init(validating: text)
        case .fcm:
            do {
                self.init(try FCMDeviceToken(validating: text))
            } catch {
                throw DeviceTokenError(error.message)
            }
        }
    }

    /// An FCM registration token.
    package init(_ token: FCMDeviceToken) {
        text = token.text
        transport = .fcm
    }

    /// The FCM registration token; `nil` for an APNs token.
    package var fcmToken: FCMDeviceToken? {
        transport == .fcm ? FCMDeviceToken(checked: text) : nil
    }

    /// Stands for a token the registry holds but could not read (a record edited by hand, see the
    /// registry's `UnreadableDevice`), so that such a device can be listed and reported: a target
    /// holding it is refused, never sent to. Shown as `-`, masked or not.
    package static let unreadable = DeviceToken(unreadableMarker: ())

    private init(unreadableMarker: Void) {
        text = ""
        transport = .apns
    }

    /// Whether this is `unreadable`, not a token.
    package var isUnreadable: Bool { text.isEmpty }

    /// The text, or `-` for `unreadable`: what a listing with whole tokens shows.
    package var shownInFull: String { isUnreadable ? "-" : text }

    /// An APNs token's length in bytes (32 for today's tokens).
    package var byteCount: Int { text.utf8.count / 2 }

    /// The first 8 and last 4 characters, `740f4707…8e2a`: enough to tell tokens apart in human
    /// output without printing a deliverable address.
    package var masked: String {
        var text = ""
        appendMasked(to: &text)
        return text
    }

    /// Appends `masked` to `text`, without making a string of it first.
    package func appendMasked(to text: inout String) {
        guard !isUnreadable else {
            text += "-"
            return
        }
        text.append(contentsOf: self.text.prefix(8))
        text += "…"
        text.append(contentsOf: self.text.suffix(4))
    }

    /// The token's text.
    package var description: String { text }

    /// Orders tokens by their text.
    package static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool { lhs.text < rhs.text }
}
