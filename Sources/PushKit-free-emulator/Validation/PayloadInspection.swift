#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Checks a request body the way APNs does (one JSON document, RFC 8259, valid UTF-8, nesting at
/// most 512 deep) and yields what the emulator needs: the kind of the top-level value, the kind of
/// its `aps` member, and the payload as compact JSON for the record.
///
/// It parses with `JSONValue.parse` (the registry's pull parser) and writes with
/// `JSONValue.serialized()` (the core's compact writer), so the record holds the payload
/// normalized: keys sorted, numbers and strings re-encoded, no insignificant whitespace.
enum PayloadInspection {
    /// The kind of a JSON value.
    enum Kind: String, Sendable {
        case object, array, string, number, boolean, null

        init(_ value: JSONValue) {
            switch value {
            case .object: self = .object
            case .array: self = .array
            case .string: self = .string
            case .number: self = .number
            case .bool: self = .boolean
            case .null: self = .null
            }
        }
    }

    /// What a successful inspection found.
    struct Result: Sendable {
        /// The payload as compact JSON (fits on one line).
        let compact: [UInt8]
        /// The kind of the top-level value.
        let kind: Kind
        /// The kind of the top-level object's `aps` member; `nil` when absent.
        let apsKind: Kind?
    }

    /// Parses `bytes` as one JSON document; a failure says where parsing stopped ("line 1, column 9: …").
    static func inspect(_ bytes: [UInt8]) -> Swift.Result<Result, JSONSyntaxError> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(bytes))
        } catch {
            return .failure(error)
        }
        let compact = [UInt8](value.serialized())
        return .success(Result(compact: compact, kind: Kind(value), apsKind: value["aps"].map(Kind.init)))
    }
}
