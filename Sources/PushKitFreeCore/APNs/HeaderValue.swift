/// The rule for text that becomes an HTTP header value (the topic, a collapse id): no control
/// characters. libcurl sends a header line as given, so a line break inside a value would end that
/// header and start another one of the sender's choosing (`apns-priority`, `apns-push-type`…).
package enum HeaderValue {
    /// Whether `text` holds a control character or a line break of any kind: C0 (below U+0020, a
    /// tab, CR and LF among them), DEL (U+007F), C1 (U+0080 to U+009F, NEL among them), and
    /// Unicode's line and paragraph separators (U+2028, U+2029), which some readers of a header or
    /// a log take for a line break as they take LF.
    package static func hasControlCharacter(_ text: String) -> Bool {
        // ASCII text, nearly every value: a look at the bytes is enough.
        let bytes = text.utf8
        if !bytes.contains(where: { $0 >= 0x80 }) { return bytes.contains { $0 < 0x20 || $0 == 0x7F } }
        return text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
    }

    /// What a refusal says after the setting's name.
    package static let refusal =
        "must not contain control characters or line separators (a line break would add a header of its own)"
}
