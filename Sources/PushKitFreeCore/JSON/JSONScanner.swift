#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A pull parser over UTF-8 JSON bytes: the caller asks for the value it expects next.
///
/// Used instead of `JSONDecoder` where files are large (a registry of 100,000 devices is ~30 MB):
/// it reads typed fields straight from the bytes, builds `JSONValue` only for fields the caller does
/// not know, and reports failures as "line L, column C: what was expected". Strict RFC 8259: no
/// comments, no trailing commas, strings must be valid UTF-8 without raw control characters.
///
/// The bytes are borrowed: use a scanner only inside the `withUnsafeBytes` call that produced them.
package struct JSONScanner {
    /// The largest nesting of arrays and objects accepted, so hostile input cannot exhaust the stack.
    package static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Offset of the next unread byte.
    package private(set) var offset = 0

    /// How many bytes are left to read.
    package var remainingByteCount: Int { bytes.count - offset }

    /// A scanner at the start of `bytes`, which must outlive it.
    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The kinds of value that can come next, decided by their first byte.
    package enum Kind {
        case object, array, string, number, bool, null
    }

    // MARK: Positions and errors

    /// A syntax or shape error at `offset` (default: the next unread byte), with line and column.
    package func failure(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
        let position = min(position ?? offset, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<position where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return JSONSyntaxError(detail: "line \(line), column \(position - lineStart + 1): \(message)")
    }

    private func describeNext() -> String {
        guard offset < bytes.count else { return "the end of the input" }
        let byte = bytes[offset]
        if byte >= 0x20, byte < 0x7f { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    // MARK: Structure

    /// Skips spaces, tabs, carriage returns and newlines.
    package mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0a, 0x0d, 0x09: offset += 1
            default: return
            }
        }
    }

    /// True when only whitespace remains.
    package mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return offset == bytes.count
    }

    /// Fails unless only whitespace remains.
    package mutating func expectEnd() throws(JSONSyntaxError) {
        if !isAtEnd() { throw failure("unexpected \(describeNext()) after the JSON value") }
    }

    /// The kind of the next value, without consuming it.
    package mutating func peekKind() throws(JSONSyntaxError) -> Kind {
        skipWhitespace()
        guard offset < bytes.count else { throw failure("unexpected end of input, expected a value") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw failure("unexpected \(describeNext()), expected a value")
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == byte {
            offset += 1
            return true
        }
        return false
    }

    private mutating func expect(_ byte: UInt8, _ context: String) throws(JSONSyntaxError) {
        if !consume(byte) {
            throw failure("expected '\(Character(Unicode.Scalar(byte)))' \(context), found \(describeNext())")
        }
    }

    /// Consumes the `{` of an object. Returns `false` when the object is empty (its `}` is consumed
    /// too); otherwise read members with `readMemberName()`, a value, and `nextMember()`:
    ///
    ///     if try scanner.beginObject() {
    ///         repeat {
    ///             let name = try scanner.readMemberName()
    ///             ... read exactly one value ...
    ///         } while try scanner.nextMember()
    ///     }
    ///
    /// - Parameter depth: how deeply this object is nested, checked against `maximumDepth`.
    package mutating func beginObject(depth: Int = 0) throws(JSONSyntaxError) -> Bool {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        try expect(UInt8(ascii: "{"), "to start an object")
        return !consume(UInt8(ascii: "}"))
    }

    /// Reads a member name and the colon after it.
    package mutating func readMemberName() throws(JSONSyntaxError) -> String {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw failure("expected a member name in double quotes, found \(describeNext())")
        }
        let name = try readString()
        try expect(UInt8(ascii: ":"), "after the member name")
        skipWhitespace()
        return name
    }

    /// After a member's value: `true` when a comma announces another member, `false` at the `}`.
    package mutating func nextMember() throws(JSONSyntaxError) -> Bool {
        try continueAfterElement(closing: UInt8(ascii: "}"), "between object members")
    }

    /// Consumes the `[` of an array. Returns `false` when the array is empty; otherwise read one
    /// value, then call `nextElement()`, as for objects.
    package mutating func beginArray(depth: Int = 0) throws(JSONSyntaxError) -> Bool {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        try expect(UInt8(ascii: "["), "to start an array")
        return !consume(UInt8(ascii: "]"))
    }

    /// After an element: `true` when a comma announces another element, `false` at the `]`.
    package mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        try continueAfterElement(closing: UInt8(ascii: "]"), "between array elements")
    }

    private mutating func continueAfterElement(closing: UInt8, _ context: String) throws(JSONSyntaxError) -> Bool {
        if consume(UInt8(ascii: ",")) { return true }
        if consume(closing) { return false }
        throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))' \(context), found \(describeNext())")
    }

    // MARK: Scalars

    /// Consumes `null` if it comes next.
    package mutating func consumeNull() -> Bool {
        skipWhitespace()
        if bytes.count - offset >= 4, bytes[offset] == UInt8(ascii: "n"), bytes[offset + 1] == UInt8(ascii: "u"),
            bytes[offset + 2] == UInt8(ascii: "l"), bytes[offset + 3] == UInt8(ascii: "l")
        {
            offset += 4
            return true
        }
        return false
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if matches("true") {
            offset += 4
            return true
        }
        if matches("false") {
            offset += 5
            return false
        }
        throw failure("expected true or false, found \(describeNext())")
    }

    private func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        let pointer = literal.utf8Start
        for index in 0..<count where bytes[offset + index] != pointer[index] { return false }
        return true
    }

    /// Reads a string that has no escapes and returns its bytes without making a `String` (for member
    /// names, timestamps and enumerations the caller compares or parses as bytes). Returns `nil`,
    /// consuming nothing, when the string has escapes: call `readString()` then. The bytes are not
    /// checked to be UTF-8.
    package mutating func readRawString() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        let start = offset
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw failure("expected a string, found \(describeNext())")
        }
        var index = offset + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                offset = index + 1
                return UnsafeBufferPointer(rebasing: bytes[start + 1..<index])
            }
            if byte == UInt8(ascii: "\\") { return nil }
            if byte < 0x20 {
                throw failure("control character 0x\(String(byte, radix: 16)) in a string must be escaped", at: index)
            }
            index += 1
        }
        throw failure("unterminated string", at: start)
    }

    /// Like `readMemberName()`, but returns the raw bytes of a name without escapes (see
    /// `readRawString()`); `nil`, consuming nothing, for a name with escapes.
    package mutating func readRawMemberName() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw failure("expected a member name in double quotes, found \(describeNext())")
        }
        guard let name = try readRawString() else { return nil }
        try expect(UInt8(ascii: ":"), "after the member name")
        skipWhitespace()
        return name
    }

    /// Moves back to `position`, an offset this scanner was at before.
    package mutating func rewind(to position: Int) {
        offset = position
    }

    /// Reads a string, decoding escapes. Fails on raw control characters and invalid UTF-8.
    package mutating func readString() throws(JSONSyntaxError) -> String {
        skipWhitespace()
        let start = offset
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw failure("expected a string, found \(describeNext())")
        }
        offset += 1
        let contentStart = offset
        var allBytes: UInt8 = 0
        // Fast path: no escapes, the common case for keys, tokens and timestamps.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<offset])
                offset += 1
                // ASCII needs no validation; `String(validating:)` costs a fifth of a large parse.
                if allBytes < 0x80 { return String(decoding: content, as: UTF8.self) }
                return try makeString(content, start: start)
            }
            allBytes |= byte
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 {
                throw failure("control character 0x\(String(byte, radix: 16)) in a string must be escaped")
            }
            offset += 1
        }
        guard offset < bytes.count else { throw failure("unterminated string", at: start) }
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<offset]))
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return try decoded.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
                    try makeString(buffer, start: start)
                }
            case UInt8(ascii: "\\"):
                try readEscape(into: &decoded)
            case 0..<0x20:
                throw failure("control character 0x\(String(byte, radix: 16)) in a string must be escaped")
            default:
                decoded.append(byte)
                offset += 1
            }
        }
        throw failure("unterminated string", at: start)
    }

    private func makeString(_ content: UnsafeBufferPointer<UInt8>, start: Int) throws(JSONSyntaxError) -> String {
        guard let string = String(validating: content, as: UTF8.self) else {
            throw failure("string is not valid UTF-8", at: start)
        }
        return string
    }

    private mutating func readEscape(into decoded: inout [UInt8]) throws(JSONSyntaxError) {
        offset += 1
        guard offset < bytes.count else { throw failure("unterminated escape sequence") }
        let escape = bytes[offset]
        offset += 1
        switch escape {
        case UInt8(ascii: "\""): decoded.append(0x22)
        case UInt8(ascii: "\\"): decoded.append(0x5c)
        case UInt8(ascii: "/"): decoded.append(0x2f)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0c)
        case UInt8(ascii: "n"): decoded.append(0x0a)
        case UInt8(ascii: "r"): decoded.append(0x0d)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xd800..<0xdc00).contains(scalar) {
                guard matches("\\u") else { throw failure("unpaired UTF-16 surrogate in \\u escape") }
                offset += 2
                let low = try readHex4()
                guard (0xdc00..<0xe000).contains(low) else { throw failure("unpaired UTF-16 surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
            } else if (0xdc00..<0xe000).contains(scalar) {
                throw failure("unpaired UTF-16 surrogate in \\u escape")
            }
            // Surrogates were handled above, so this is always a valid scalar.
            decoded.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
        default:
            throw failure("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string", at: offset - 2)
        }
    }

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw failure("\\u must be followed by four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u must be followed by four hex digits")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// Reads a number as a `Double` (JSON numbers have no separate integer type).
    package mutating func readNumber() throws(JSONSyntaxError) -> Double {
        skipWhitespace()
        let start = offset
        func digits() -> Int {
            let first = offset
            while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
                offset += 1
            }
            return offset - first
        }
        var negative = false
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") {
            offset += 1
            negative = true
        }
        let integerStart = offset
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected a digit in number", at: offset) }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw failure("leading zeros are not allowed in numbers", at: integerStart)
        }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            isInteger = false
            guard digits() > 0 else { throw failure("expected a digit after the decimal point") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            isInteger = false
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard digits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        if isInteger, integerDigits <= 15 {
            var value = 0
            for index in integerStart..<offset { value = value * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
            return Double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure("number \(text) is out of range", at: start)
        }
        return value
    }

    // MARK: Any value

    /// Reads any value as a `JSONValue`.
    package mutating func readValue(depth: Int = 0) throws(JSONSyntaxError) -> JSONValue {
        switch try peekKind() {
        case .null:
            guard consumeNull() else { throw failure("unexpected \(describeNext()), expected a value") }
            return .null
        case .bool: return .bool(try readBool())
        case .number: return .number(try readNumber())
        case .string: return .string(try readString())
        case .array:
            var elements: [JSONValue] = []
            if try beginArray(depth: depth) {
                repeat {
                    elements.append(try readValue(depth: depth + 1))
                } while try nextElement()
            }
            return .array(elements)
        case .object:
            var members: [String: JSONValue] = [:]
            if try beginObject(depth: depth) {
                repeat {
                    let name = try readMemberName()
                    members[name] = try readValue(depth: depth + 1)
                } while try nextMember()
            }
            return .object(members)
        }
    }
}

extension JSONScanner {
    /// Runs `body` with a scanner over the bytes of `data`.
    package static func withScanner<T>(
        over data: Data, _ body: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(JSONSyntaxError) -> T {
        let result: Result<T, JSONSyntaxError> = data.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            do throws(JSONSyntaxError) {
                return .success(try body(&scanner))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
