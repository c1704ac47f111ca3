#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value, kept as parsed so that fields this version does not know survive a rewrite.
package enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The string, when this value is one.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, when this value is one.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this value is one.
    package var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The integer, when this value is a number without a fractional part.
    package var integerValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    /// The members, when this value is an object.
    package var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when this value is an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The JSON type name used in error messages ("string", "object", ...).
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Member access for objects; `nil` for other values or missing keys.
    package subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: Codable {
    /// Decodes any single JSON value; a number becomes `.number` whether it is integral or not.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value; an integral number below 2^53 in magnitude is written without a fraction.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Parses `data` as one JSON document (strict RFC 8259, UTF-8).
    /// - Throws: `JSONSyntaxError` whose detail says where parsing stopped: "line 3, column 7: ...".
    package static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        try JSONScanner.withScanner(over: data) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
            let value = try scanner.readValue()
            try scanner.expectEnd()
            return value
        }
    }

    /// Serializes this value, with keys sorted so output is stable: compact by default (through
    /// `JSONWriter`, the fast path every payload and JSON line takes), or indented for people.
    package func serialized(pretty: Bool = false) -> Data {
        if !pretty {
            var writer = JSONWriter()
            writer.value(self)
            return Data(writer.bytes)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: every case maps to a JSON value.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    /// Serializes this value to a `String`.
    package func serializedString(pretty: Bool = false) -> String {
        String(decoding: serialized(pretty: pretty), as: UTF8.self)
    }
}

/// Raised when bytes are not valid JSON; `detail` says where and why.
package struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What the parser reported, e.g. "line 3, column 7: expected ':'".
    package let detail: String
    /// The detail.
    package var description: String { detail }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A `.string`.
    package init(stringLiteral value: String) { self = .string(value) }
    /// A `.number`, as `Double`.
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A `.number`.
    package init(floatLiteral value: Double) { self = .number(value) }
    /// A `.bool`.
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An `.array`.
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An `.object`; of duplicate keys, the last wins.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `.null`.
    package init(nilLiteral: ()) { self = .null }
}
