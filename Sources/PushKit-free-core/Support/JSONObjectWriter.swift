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

    /// Adds a string field.
    public mutating func field(_ key: String, _ value: String?) {
        writeKey(key)
        if let value { Self.appendQuoted(value, to: &bytes) } else { appendNull() }
    }

    /// Adds an integer field.
    public mutating func field(_ key: String, _ value: Int?) {
        writeKey(key)
        if let value { bytes.append(contentsOf: String(value).utf8) } else { appendNull() }
    }

    /// Adds a boolean field.
    public mutating func field(_ key: String, _ value: Bool) {
        writeKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Adds a field whose value is already JSON text (not checked).
    public mutating func rawField(_ key: String, json: [UInt8]?) {
        writeKey(key)
        if let json { bytes.append(contentsOf: json) } else { appendNull() }
    }

    /// Adds a field whose value is already JSON text (not checked).
    public mutating func rawField(_ key: String, json: String?) {
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

    private mutating func writeKey(_ key: String) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
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
        var seconds = time_t(milliseconds / 1000)
        let millis = Int(milliseconds % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(Int(parts.tm_year) + 1900)-\(pad(Int(parts.tm_mon) + 1))-\(pad(Int(parts.tm_mday)))T\(pad(Int(parts.tm_hour))):\(pad(Int(parts.tm_min))):\(pad(Int(parts.tm_sec))).\(pad(millis, width: 3))Z"
    }

    /// `12:34:56.789` (UTC) for `milliseconds` since 1970: the clock time in one-line summaries.
    public static func clockTime(milliseconds: Int64) -> String {
        let text = iso8601(milliseconds: milliseconds)
        let start = text.index(text.startIndex, offsetBy: 11)
        return String(text[start..<text.index(before: text.endIndex)])
    }

    private static func pad(_ value: Int, width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
