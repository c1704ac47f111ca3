/// Why a device token was refused (exit 65): its length, or the first character that is not hex.
package struct DeviceTokenError: PushKitError, Equatable {
    /// What is wrong, e.g. "device token has 63 hex digits; expected ...".
    package let message: String
    /// Always 65: a bad token is bad input.
    package var exitStatus: ExitStatus { .dataError }
    /// The message.
    package var description: String { message }

    /// An error with `message`.
    package init(_ message: String) {
        self.message = message
    }

    static func badLength(_ digits: Int) -> DeviceTokenError {
        let expected =
            "an even number from \(2 * DeviceToken.minimumBytes) to \(2 * DeviceToken.maximumBytes) (\(DeviceToken.minimumBytes) to \(DeviceToken.maximumBytes) bytes)"
        if digits == 0 { return DeviceTokenError("device token is empty; expected \(expected) hex digits") }
        return DeviceTokenError("device token has \(digits) hex digits; expected \(expected)")
    }

    static func badCharacter(in text: String, utf8Offset: Int) -> DeviceTokenError {
        // Every byte before the bad one is an ASCII hex digit, so the byte offset is also the
        // character position, and the bad byte starts a Unicode scalar.
        let scalar = text.unicodeScalars[text.utf8.index(text.utf8.startIndex, offsetBy: utf8Offset)]
        let shown = scalar.shownInMessage
        let hint =
            scalar == " " || scalar == "<" || scalar == ">"
            ? " (tokens are plain hex: drop the spaces and angle brackets of NSData's description)" : ""
        return DeviceTokenError(
            "device token has \(shown) at position \(utf8Offset + 1); only hex digits 0-9 and a-f are allowed\(hint)")
    }
}

extension Unicode.Scalar {
    /// The character as a token's error message names it: a space, a tab or a line break in words,
    /// a control character (C0, DEL or C1) by its code point, anything else quoted.
    var shownInMessage: String {
        switch self {
        case " ": "a space"
        case "\t": "a tab"
        case "\n", "\r": "a line break"
        default:
            value < 0x20 || (0x7f...0x9f).contains(value)
                ? "control character U+\(String(value, radix: 16, uppercase: true))" : "\"\(self)\""
        }
    }
}
