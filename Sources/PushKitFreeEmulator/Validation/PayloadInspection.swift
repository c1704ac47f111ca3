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
        /// The payload as parsed, for rules that look inside it (`StrictPayloadRules`).
        let value: JSONValue
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
        return .success(
            Result(compact: compact, kind: Kind(value), apsKind: value["aps"].map(Kind.init), value: value))
    }
}

extension APNsRequestAssessment {
    /// What `inspectPayload` found that the caller's own rule decides on.
    enum PayloadShape: Equatable {
        /// Empty, over 64 KiB (not inspected), or refused here: `payloadProblem` says why.
        case other
        /// A JSON object whose `aps` is an object.
        case objectWithAps
        /// A JSON object without `aps`: a device push may still be delivered (VoIP), a broadcast not.
        case objectWithoutAps
    }

    /// Reads a request body (up to 64 KiB) into `payload`, and sets `payloadProblem` for one that is
    /// not JSON, not an object, or whose `aps` is not an object.
    /// - Parameter strictPushType: when set (`--strict-payload`), an object is also judged by
    ///   `StrictPayloadRules` for this push type, and one that breaks a rule is refused here.
    mutating func inspectPayload(_ body: [UInt8], strictPushType: APNsPushType? = nil) -> PayloadShape {
        guard !body.isEmpty, body.count <= 64 * 1024 else { return .other }
        switch PayloadInspection.inspect(body) {
        case .success(let scan):
            payload = scan.compact
            if scan.kind != .object {
                payloadProblem = "the payload is a JSON \(scan.kind.rawValue), not an object"
            } else if scan.apsKind == nil || scan.apsKind == .object, let strictPushType,
                let problem = StrictPayloadRules.problem(in: scan.value, pushType: strictPushType)
            {
                payloadProblem = problem
            } else if let apsKind = scan.apsKind {
                guard apsKind == .object else {
                    payloadProblem = "\"aps\" is a \(apsKind.rawValue), not an object"
                    return .other
                }
                return .objectWithAps
            } else {
                return .objectWithoutAps
            }
        case .failure(let failure):
            payloadProblem = "the payload is not JSON: \(failure)"
        }
        return .other
    }
}
