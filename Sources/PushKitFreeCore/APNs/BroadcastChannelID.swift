/// The id APNs gives a broadcast channel (`apns-channel-id`): a base64 string, opaque to clients.
package enum BroadcastChannelID {
    /// The longest id this project accepts, in characters. Apple names no limit (only that
    /// `BadChannelId` answers one "greater than the allowed length"); ids it issues are 24
    /// characters (16 bytes), so this leaves room without accepting arbitrary text.
    package static let maximumLength = 256

    /// Whether `text` looks like a channel id: standard base64 (`A-Z a-z 0-9 + /`, `=` padding at
    /// the end only, length a multiple of 4), 4 to `maximumLength` characters.
    package static func isWellFormed(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count >= 4, utf8.count <= maximumLength, utf8.count % 4 == 0 else { return false }
        var padding = 0
        for byte in utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return false }
            let isAlphabet =
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            guard isAlphabet else { return false }
        }
        return padding <= 2
    }
}
