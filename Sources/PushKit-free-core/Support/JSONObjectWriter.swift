#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one compact JSON object field by field into bytes, for output on hot paths (the
/// emulator's request records) where building a `JSONValue` and encoding it would cost too much.
///
/// Fields appear in the order written; `nil` values are written as `null`.
public struct JSONObjectWriter: Sendable {
    /// The bytes so far; complete JSON after `finish()`.
    public private(set) var bytes: [UInt8]
    private var isFirst = true
    private var isFinished = false

    /// Starts an object, reserving `capacity` bytes.
    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Adds a string field. Keys are fixed names that need no escaping.
    public mutating func field(_ key: StaticString, _ value: String?) {
        writeKey(key)
        if let value { Self.appendQuoted(value, to: &bytes) } else { appendNull() }
    }

    /// Adds an integer field.
    public mutating func field(_ key: StaticString, _ value: Int?) {
        writeKey(key)
        if let value { bytes.append(contentsOf: String(value).utf8) } else { appendNull() }
    }

    /// Adds a boolean field.
    public mutating func field(_ key: StaticString, _ value: Bool) {
        writeKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Adds an integer field whose name is data (escaped as needed).
    public mutating func field(named key: String, _ value: Int?) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if let value { bytes.append(contentsOf: String(value).utf8) } else { appendNull() }
    }

    /// Adds a field whose value is already JSON text (not checked).
    public mutating func rawField(_ key: StaticString, json: [UInt8]?) {
        writeKey(key)
        if let json { bytes.append(contentsOf: json) } else { appendNull() }
    }

    /// Adds a field whose value is already JSON text (not checked).
    public mutating func rawField(_ key: StaticString, json: String?) {
        writeKey(key)
        if let json { bytes.append(contentsOf: json.utf8) } else { appendNull() }
    }

    /// Closes the object and returns its bytes.
    public mutating func finish() -> [UInt8] {
        if !isFinished {
            bytes.append(UInt8(ascii: "}"))
            isFinished = true
        }
        return bytes
    }

    private mutating func appendNull() {
        bytes.append(contentsOf: "null".utf8)
    }

    private mutating func writeKey(_ key: StaticString) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters,
    /// and, as `\uXXXX`, the other characters a terminal must not get raw (C1 controls, line and
    /// paragraph separators, bidirectional overrides: `TerminalText.needsEscape`), so JSON output
    /// printed on a terminal cannot drive it. The decoded string is the same.
    public static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Lead bytes of the non-ASCII scalars that may need escaping: U+0080-009F (C2),
            // U+061C (D8), U+200E-206F (E2).
            if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) {
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
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
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
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Timestamps as the emulator writes them: UTC, ISO 8601, milliseconds.
public enum UTCTimestamp {
    /// `2025-01-31T12:34:56.789Z` for `milliseconds` since 1970.
    public static func iso8601(milliseconds: Int64) -> String {
        String(decoding: iso8601Bytes(milliseconds: milliseconds), as: UTF8.self)
    }

    /// `12:34:56.789` (UTC) for `milliseconds` since 1970: the clock time in one-line summaries.
    public static func clockTime(milliseconds: Int64) -> String {
        String(decoding: iso8601Bytes(milliseconds: milliseconds)[11..<23], as: UTF8.self)
    }

    /// The 24 bytes of `iso8601(milliseconds:)` (this runs per request).
    static func iso8601Bytes(milliseconds: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        ISO8601Timestamp.append(milliseconds: milliseconds, to: &bytes)
        return bytes
    }
}
