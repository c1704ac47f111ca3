/// JSON string literals as every JSON writer of the project writes them: quotes, backslashes and
/// control characters escaped, and the characters a terminal must not get raw as `\uXXXX`.
package enum JSONString {
    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters,
    /// and, as `\uXXXX`, the other characters a terminal must not get raw (C1 controls, line and
    /// paragraph separators, bidirectional overrides: `TerminalText.needsEscape`), so JSON output
    /// printed on a terminal cannot drive it. The decoded string is the same.
    package static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Lead bytes of the non-ASCII scalars that may need escaping: U+0080-009F (C2),
            // U+061C (D8), U+200E-206F (E2).
            if !utf8.contains(where: {
                $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2
            }) {
                bytes.append(contentsOf: utf8)
                return
            }
            if utf8.contains(where: { $0 >= 0x80 }) {
                appendEscapingScalars(utf8, to: &bytes)
                return
            }
            for byte in utf8 { appendEscaped(byte, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The slow path for text with non-ASCII characters: scalar by scalar.
    private static func appendEscapingScalars(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
            if scalar.isASCII {
                appendEscaped(UInt8(scalar.value), to: &bytes)
            } else if TerminalText.needsEscape(scalar) {
                appendUnicodeEscape(scalar.value, to: &bytes)
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(byte)
        case 0x0A:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "n"))
        case 0x0D:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "r"))
        case 0x09:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "t"))
        case 0x00..<0x20, 0x7F: appendUnicodeEscape(UInt32(byte), to: &bytes)
        default: bytes.append(byte)
        }
    }

    /// `\uXXXX` for a scalar of the Basic Multilingual Plane.
    private static func appendUnicodeEscape(_ value: UInt32, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
    }

    /// `text` as a JSON string literal.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
