#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// Writes one compact JSON object field by field into bytes, for output on hot paths (the
/// emulator's request records) where building a `JSONValue` and encoding it would cost too much.
///
/// Fields appear in the order written; `nil` values are written as `null`.
struct JSONObjectWriter: Sendable {
    /// The bytes so far; complete JSON after `finish()`.
    private(set) var bytes: [UInt8]
    private var isFirst = true
    private var isFinished = false

    /// Starts an object, reserving `capacity` bytes.
    init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Adds a string field. Keys are fixed names that need no escaping.
    mutating func field(_ key: StaticString, _ value: String?) {
        writeKey(key)
        if let value { JSONString.appendQuoted(value, to: &bytes) } else { appendNull() }
    }

    /// Adds an integer field.
    mutating func field(_ key: StaticString, _ value: Int?) {
        writeKey(key)
        if let value { bytes.append(contentsOf: String(value).utf8) } else { appendNull() }
    }

    /// Adds a boolean field.
    mutating func field(_ key: StaticString, _ value: Bool) {
        writeKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Adds an integer field whose name is data (escaped as needed).
    mutating func field(named key: String, _ value: Int?) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        JSONString.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if let value { bytes.append(contentsOf: String(value).utf8) } else { appendNull() }
    }

    /// Adds a field whose value is already JSON text (not checked).
    mutating func rawField(_ key: StaticString, json: [UInt8]?) {
        writeKey(key)
        if let json { bytes.append(contentsOf: json) } else { appendNull() }
    }

    /// Adds a field whose value is already JSON text (not checked).
    mutating func rawField(_ key: StaticString, json: String?) {
        writeKey(key)
        if let json { bytes.append(contentsOf: json.utf8) } else { appendNull() }
    }

    /// Closes the object and returns its bytes.
    mutating func finish() -> [UInt8] {
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
}
