/// An APNs device token: hex text, stored lowercase.
///
/// Apple says the length varies (32 bytes today) and must not be hard-coded, so any even number of
/// hex digits from 16 to 256 bytes is accepted; anything else is refused with a message naming the
/// length or the first character that is not hex.
package struct DeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The fewest bytes accepted.
    package static let minimumBytes = 16
    /// The most bytes accepted.
    package static let maximumBytes = 256

    /// The token as lowercase hex, the form APNs' `/3/device/<token>` path and the state file use.
    package let hex: String

    /// Validates `text` (hex in either case) and stores it lowercase.
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
        hex = hasUppercase ? text.lowercased() : text
    }

    /// Stands for a token the registry holds but could not read (a record edited by hand, see the
    /// registry's `UnreadableDevice`), so that such a device can be listed and reported: a target
    /// holding it is refused, never sent to. Shown as `-`, masked or not.
    package static let unreadable = DeviceToken(unreadableMarker: ())

    private init(unreadableMarker: Void) { hex = "" }

    /// Whether this is `unreadable`, not a token.
    package var isUnreadable: Bool { hex.isEmpty }

    /// The hex, or `-` for `unreadable`: what a listing with whole tokens shows.
    package var shownInFull: String { isUnreadable ? "-" : hex }

    /// The token's length in bytes (32 for today's tokens).
    package var byteCount: Int { hex.utf8.count / 2 }

    /// The first 8 and last 4 hex digits, `740f4707…8e2a`: enough to tell tokens apart in human output
    /// without printing a deliverable address.
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
        text.append(contentsOf: hex.prefix(8))
        text += "…"
        text.append(contentsOf: hex.suffix(4))
    }

    /// The lowercase hex.
    package var description: String { hex }

    /// Orders tokens by their hex text.
    package static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool { lhs.hex < rhs.hex }
}
