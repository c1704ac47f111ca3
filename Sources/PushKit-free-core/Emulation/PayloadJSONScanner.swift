/// A single-pass JSON syntax check (RFC 8259) that also compacts the text and reports the kind of
/// the top-level value and of its `aps` member.
///
/// Made for the emulator's hot path: it checks a payload and yields the bytes to record in one
/// pass, without building a tree. Strings must be valid UTF-8; nesting deeper than 512 levels is
/// refused.
public struct PayloadJSONScanner {
    /// The kind of a JSON value.
    public enum Kind: String, Sendable {
        case object, array, string, number, boolean, null
    }

    /// What a successful scan found.
    public struct Result: Sendable {
        /// The same JSON without insignificant whitespace (fits on one line).
        public let compact: [UInt8]
        /// The kind of the top-level value.
        public let kind: Kind
        /// The kind of the top-level object's `aps` member; `nil` when absent or not an object.
        public let apsKind: Kind?
    }

    /// Why a scan failed: what was wrong and at which byte offset.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let message: String
        /// Where, counting bytes from 0.
        public let offset: Int
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Scans `bytes` as one JSON document.
    public static func scan(_ bytes: [UInt8]) -> Swift.Result<Result, Failure> {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = PayloadJSONScanner(input: buffer)
            do throws(Failure) {
                let result = try scanner.document()
                return .success(result)
            } catch {
                return .failure(error)
            }
        }
    }

    private let input: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var output: [UInt8] = []
    private var depth = 0
    private static let maximumDepth = 512

    private init(input: UnsafeBufferPointer<UInt8>) {
        self.input = input
        output.reserveCapacity(input.count)
    }

    private func failure(_ message: String) -> Failure {
        Failure(message: message, offset: index)
    }

    private mutating func document() throws(Failure) -> Result {
        skipWhitespace()
        var apsKind: Kind?
        let kind = try value(topLevel: true, apsKind: &apsKind)
        skipWhitespace()
        guard index == input.count else { throw failure("unexpected text after the JSON value") }
        return Result(compact: output, kind: kind, apsKind: apsKind)
    }

    private mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value(topLevel: Bool, apsKind: inout Kind?) throws(Failure) -> Kind {
        guard index < input.count else { throw failure("unexpected end of input") }
        switch input[index] {
        case UInt8(ascii: "{"): try object(topLevel: topLevel, apsKind: &apsKind); return .object
        case UInt8(ascii: "["): try array(); return .array
        case UInt8(ascii: "\""): _ = try string(); return .string
        case UInt8(ascii: "t"): try literal("true"); return .boolean
        case UInt8(ascii: "f"): try literal("false"); return .boolean
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(); return .number
        default: throw failure("unexpected character")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object(topLevel: Bool, apsKind: inout Kind?) throws(Failure) {
        try enter()
        output.append(input[index])
        index += 1
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "}") {
            output.append(input[index])
            index += 1
            depth -= 1
            return
        }
        var ignored: Kind?
        while true {
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let isAPS = try string()
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            output.append(input[index])
            index += 1
            skipWhitespace()
            let kind = try value(topLevel: false, apsKind: &ignored)
            if topLevel, isAPS { apsKind = kind }
            skipWhitespace()
            guard index < input.count else { throw failure("unexpected end of input in an object") }
            let byte = input[index]
            output.append(byte)
            index += 1
            if byte == UInt8(ascii: "}") { break }
            guard byte == UInt8(ascii: ",") else { index -= 1; throw failure("expected ',' or '}' in an object") }
        }
        depth -= 1
    }

    private mutating func array() throws(Failure) {
        try enter()
        output.append(input[index])
        index += 1
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "]") {
            output.append(input[index])
            index += 1
            depth -= 1
            return
        }
        var ignored: Kind?
        while true {
            skipWhitespace()
            _ = try value(topLevel: false, apsKind: &ignored)
            skipWhitespace()
            guard index < input.count else { throw failure("unexpected end of input in an array") }
            let byte = input[index]
            output.append(byte)
            index += 1
            if byte == UInt8(ascii: "]") { break }
            guard byte == UInt8(ascii: ",") else { index -= 1; throw failure("expected ',' or ']' in an array") }
        }
        depth -= 1
    }

    /// Scans a string; returns whether its decoded text is exactly `aps`.
    private mutating func string() throws(Failure) -> Bool {
        let start = index
        output.append(input[index])
        index += 1
        var decoded: [UInt8] = []
        var escaped = false
        while true {
            guard index < input.count else { throw failure("unterminated string") }
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "\""):
                output.append(byte)
                index += 1
                let length = index - start - 2
                if escaped { return decoded == Array("aps".utf8) }
                return length == 3 && input[start + 1] == UInt8(ascii: "a") && input[start + 2] == UInt8(ascii: "p") && input[start + 3] == UInt8(ascii: "s")
            case UInt8(ascii: "\\"):
                if !escaped {
                    escaped = true
                    decoded = Array(input[(start + 1)..<index])
                }
                guard index + 1 < input.count else { throw failure("unterminated escape") }
                let escape = input[index + 1]
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                    decoded.append(escape)
                    output.append(contentsOf: input[index...(index + 1)])
                    index += 2
                case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    decoded.append(0)
                    output.append(contentsOf: input[index...(index + 1)])
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 5 < input.count else { throw failure("unterminated \\u escape") }
                    var scalar: UInt32 = 0
                    for offset in 2...5 {
                        guard let digit = Self.hexValue(input[index + offset]) else { throw failure("bad \\u escape") }
                        scalar = scalar << 4 | UInt32(digit)
                    }
                    decoded.append(scalar < 0x80 ? UInt8(scalar) : 0)
                    output.append(contentsOf: input[index...(index + 5)])
                    index += 6
                default:
                    throw failure("bad escape in a string")
                }
            case 0x00..<0x20:
                throw failure("control character in a string")
            case 0x20..<0x80:
                if escaped { decoded.append(byte) }
                output.append(byte)
                index += 1
            default:
                let length = try utf8SequenceLength()
                if escaped { decoded.append(0) }
                output.append(contentsOf: input[index..<(index + length)])
                index += length
            }
        }
    }

    /// The length of the valid UTF-8 sequence starting at `index` (a non-ASCII lead byte).
    private func utf8SequenceLength() throws(Failure) -> Int {
        let lead = input[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw failure("invalid UTF-8")
        }
        guard index + length <= input.count else { throw failure("invalid UTF-8") }
        let second = input[index + 1]
        guard second >= low, second <= high else { throw failure("invalid UTF-8") }
        for offset in stride(from: 2, to: length, by: 1) where input[index + offset] & 0xC0 != 0x80 {
            throw failure("invalid UTF-8")
        }
        return length
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let length = word.utf8CodeUnitCount
        guard index + length <= input.count else { throw failure("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: length)
        for offset in 0..<length where input[index + offset] != expected[offset] {
            throw failure("unexpected character")
        }
        output.append(contentsOf: expected)
        index += length
    }

    private mutating func number() throws(Failure) {
        let start = index
        if input[index] == UInt8(ascii: "-") { index += 1 }
        guard index < input.count, Self.isDigit(input[index]) else { throw failure("bad number") }
        if input[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < input.count, Self.isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == UInt8(ascii: ".") {
            index += 1
            guard index < input.count, Self.isDigit(input[index]) else { throw failure("bad number") }
            while index < input.count, Self.isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
            guard index < input.count, Self.isDigit(input[index]) else { throw failure("bad number") }
            while index < input.count, Self.isDigit(input[index]) { index += 1 }
        }
        output.append(contentsOf: input[start..<index])
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
