/// Appends compact JSON to a byte buffer: the fast counterpart of `JSONScanner` for large files.
///
/// Strings are written as UTF-8 with only the escapes JSON requires (quote, backslash, control
/// characters); object keys of `JSONValue`s are sorted so output is stable. Integral numbers below
/// 2^53 are written without a fraction, like `JSONValue`'s `Encodable` conformance.
package struct JSONWriter {
    /// The JSON written so far.
    package var bytes: [UInt8] = []

    /// An empty writer; `capacity` bytes are reserved up front.
    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` verbatim; for punctuation and pre-formatted JSON.
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends one byte verbatim.
    package mutating func raw(byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends `value` as a JSON string.
    package mutating func string(_ value: String) {
        JSONString.appendQuoted(value, to: &bytes)
    }

    /// Appends `value` as a JSON string, or `null` when it is `nil`.
    package mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    /// Appends a number.
    package mutating func number(_ value: Double) {
        if value.rounded() == value, abs(value) < 9.0e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else if value.isFinite {
            bytes.append(contentsOf: "\(value)".utf8)
        } else {
            raw("null")
        }
    }

    /// Appends an object member name and its colon.
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends any JSON value, compactly.
    package mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): if flag { raw("true") } else { raw("false") }
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            raw(byte: UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { raw(byte: UInt8(ascii: ",")) }
                self.value(element)
            }
            raw(byte: UInt8(ascii: "]"))
        case .object(let members):
            raw(byte: UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { raw(byte: UInt8(ascii: ",")) }
                key(member.key)
                self.value(member.value)
            }
            raw(byte: UInt8(ascii: "}"))
        }
    }
}
