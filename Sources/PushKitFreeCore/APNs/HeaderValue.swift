/// The rule for text that becomes an HTTP header value (the topic, a collapse id): no control
/// characters. libcurl sends a header line as given, so a line break inside a value would end that
/// header and start another one of the sender's choosing (`apns-priority`, `apns-push-type`…).
package enum HeaderValue {
    /// Whether `text` holds a character below U+0020 (a tab, CR or LF among them) or U+007F.
    package static func hasControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// What a refusal says after the setting's name.
    package static let refusal = "must not contain control characters (a line break would add a header of its own)"
}
