#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A device whose record the registry holds but cannot use: valid JSON, but a field of it is not
/// what the tools write (a `content_key` that is not 32 bytes of base64, a token that is not hex,
/// a time that is not a timestamp, a member of the wrong type), most likely edited by hand.
///
/// One such record does not make the registry unreadable: every other device stays usable. This
/// one is kept exactly as it is (written back byte for byte, never rewritten or dropped by a
/// change to another device), named in a warning when the registry is read, flagged by
/// `register-apns list` and `apns-jwt check`, and sent nothing: a send that selects it reports it
/// refused, with `problem` as the reason. Registering its id again is refused too, since that
/// would rewrite what nobody can read; fixing the record by hand, or `register-apns remove`, ends it.
package struct UnreadableDevice: Sendable, Equatable {
    /// The device id, the record's key in `devices`.
    package let id: String
    /// What is wrong, naming the field and where: `"content_key": ... (line 4, column 120)`.
    package let problem: String
    /// The record's token, when that field is one (for listings and reports); `nil` otherwise.
    package let token: DeviceToken?
    /// The groups the record names, when that field is an array of strings: a send to one of them
    /// reports this device refused rather than leaving it out unsaid.
    package let groups: [String]
    /// The record's bytes as read, written back unchanged.
    let storedJSON: Data

    /// The device `id` whose record, `storedJSON`, could not be read for `error`.
    init(id: String, storedJSON: Data, error: JSONSyntaxError) {
        self.id = id
        self.storedJSON = storedJSON
        problem = Self.problem(error.detail, id: id)
        let members = (try? JSONValue.parse(storedJSON))?.objectValue ?? [:]
        token = members["token"]?.stringValue.flatMap { try? DeviceToken(validating: $0, transport: nil) }
        if case .array(let values)? = members["groups"] {
            groups = values.compactMap(\.stringValue)
        } else {
            groups = []
        }
    }

    /// Unreadable devices are equal when their ids and bytes are, wherever in a file they were read.
    package static func == (lhs: UnreadableDevice, rhs: UnreadableDevice) -> Bool {
        lhs.id == rhs.id && lhs.storedJSON == rhs.storedJSON
    }

    /// The parser's `line L, column C: device "<id>": <what>` as `<what> (line L, column C)`.
    private static func problem(_ detail: String, id: String) -> String {
        var text = Substring(detail)
        var position: Substring?
        if text.hasPrefix("line "), let colon = text.firstRange(of: ": ") {
            position = text[..<colon.lowerBound]
            text = text[colon.upperBound...]
        }
        let subject = "device \"\(id)\": "
        if text.hasPrefix(subject) { text = text.dropFirst(subject.count) }
        return String(text) + (position.map { " (\($0))" } ?? "")
    }

    /// The warning every tool gives when it reads the registry at `location`: the device, what is
    /// wrong, and that nothing is sent to it until its record is fixed or removed. Not escaped for
    /// a terminal: `StandardStreams.writeError` does that.
    package func warning(location: String) -> String {
        "device \"\(id)\" in \(location) cannot be used: \(problem); it is kept as it is and sent nothing "
            + "(fix the record, or remove it with register-apns remove \(id))"
    }
}
