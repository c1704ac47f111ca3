/// Why a registration token was refused (exit 65): its length, a character outside its alphabet,
/// or not exactly one colon. Messages never repeat the token.
package struct FCMDeviceTokenError: PushKitError, Equatable {
    /// What is wrong, e.g. "registration token has 63 characters; expected 100 to 4096".
    package let message: String
    /// Always 65: a bad token is bad input.
    package var exitStatus: ExitStatus { .dataError }
    /// The message.
    package var description: String { message }

    /// An error with `message`.
    package init(_ message: String) {
        self.message = message
    }

    static func badLength(_ length: Int) -> FCMDeviceTokenError {
        let expected = "\(FCMDeviceToken.minimumLength) to \(FCMDeviceToken.maximumLength)"
        if length == 0 { return FCMDeviceTokenError("registration token is empty; expected \(expected) characters") }
        return FCMDeviceTokenError("registration token has \(length) characters; expected \(expected)")
    }

    static func badColons(_ count: Int) -> FCMDeviceTokenError {
        let found = count == 0 ? "no ':'" : "\(count) ':'"
        return FCMDeviceTokenError(
            "registration token has \(found); FCM tokens have exactly one, as in <instance id>:APA91b…")
    }

    static func badCharacter(in text: String, utf8Offset: Int) -> FCMDeviceTokenError {
        // Every byte before the bad one is ASCII, so the byte offset is the character position and
        // the bad byte starts a Unicode scalar.
        let scalar = text.unicodeScalars[text.utf8.index(text.utf8.startIndex, offsetBy: utf8Offset)]
        let shown = scalar.shownInMessage
        return FCMDeviceTokenError(
            "registration token has \(shown) at position \(utf8Offset + 1); only letters, digits, '-', '_' and one ':' "
                + "are allowed")
    }
}
