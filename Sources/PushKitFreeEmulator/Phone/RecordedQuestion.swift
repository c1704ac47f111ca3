#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// A question the emulator delivered, as the app on the phone reads it from the push: the
/// `pushkit` member beside `aps` names the question, where to post the answer and with which token.
///
/// Only accepted pushes count (status 200): a refused push never reached a phone. An APNs push
/// carries the member beside `aps`; an FCM message (not `validate_only`) carries it as a JSON string
/// in `data.pushkit`, as an Android app reads it, or beside `aps` in `apns.payload`. A settled
/// notice (a `pushkit` member with `state`) replaces the question's notification on the phone but
/// carries no answer URL, so it is not a question to answer.
struct RecordedQuestion: Sendable, Equatable {
    /// The question's id (`pushkit.question`).
    var id: String
    /// The device token the push went to.
    var deviceToken: String
    /// Where the app posts the answer (`pushkit.answer_url`).
    var answerURL: String
    /// This device's capability for the question (`pushkit.answer_token`).
    var answerToken: String
    /// The choice ids the push offers (`pushkit.choices`); empty for a typed reply.
    var choices: [String]

    /// The prefix of a question push's `apns-collapse-id`; the question id follows it.
    static let collapsePrefix = "pushkit-q-"

    /// What a search of the records found.
    enum Lookup: Sendable, Equatable {
        /// The newest matching question push, readable.
        case found(RecordedQuestion)
        /// The newest matching question push travelled sealed (`enc`): only the app's key opens it.
        case sealed(question: String, deviceToken: String)
        /// No accepted push carried a matching question.
        case none
    }

    /// The newest question push among `lines` (JSON records, oldest first) that matches both
    /// filters (`nil` matches any; device tokens compare without regard to case).
    ///
    /// An encrypted push is known for a question's by its collapse id (`pushkit-q-<id>`), the one
    /// part of it that travels in clear.
    static func newest(in lines: [[UInt8]], question: String? = nil, deviceToken: String? = nil) -> Lookup {
        let wantedToken = deviceToken?.lowercased()
        for line in lines.reversed() {
            guard Self.mayCarryQuestion(line),
                let record = try? JSONValue.parse(Data(line)).objectValue,
                record["status"]?.integerValue == 200,
                let token = record["device_token"]?.stringValue,
                wantedToken == nil || token.lowercased() == wantedToken,
                let (payload, collapseID) = Self.delivered(record)
            else { continue }
            if let pushkit = Self.pushkitMember(payload), let id = pushkit["question"]?.stringValue {
                guard question == nil || id == question, pushkit["state"] == nil,
                    let answerURL = pushkit["answer_url"]?.stringValue,
                    let answerToken = pushkit["answer_token"]?.stringValue
                else { continue }
                let choices = (pushkit["choices"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                return .found(
                    RecordedQuestion(
                        id: id, deviceToken: token, answerURL: answerURL, answerToken: answerToken, choices: choices))
            }
            if payload["enc"] != nil, let collapseID, collapseID.hasPrefix(Self.collapsePrefix) {
                let id = String(collapseID.dropFirst(Self.collapsePrefix.count))
                guard question == nil || id == question else { continue }
                return .sealed(question: id, deviceToken: token)
            }
        }
        return .none
    }

    /// What a delivered record put on the phone: an APNs push's payload and collapse id, or an FCM
    /// message's `data` (or, without a `pushkit` there, its `apns.payload`) and its APNs collapse id.
    private static func delivered(_ record: [String: JSONValue]) -> (payload: [String: JSONValue], collapseID: String?)?
    {
        switch (record["provider"]?.stringValue, record["kind"]?.stringValue) {
        case (nil, "push"):
            guard let payload = record["payload"]?.objectValue else { return nil }
            return (payload, record["collapse_id"]?.stringValue)
        case ("fcm", "send"):
            guard record["validate_only"]?.boolValue != true, let message = record["message"]?.objectValue else {
                return nil
            }
            let apns = message["apns"]?.objectValue
            let collapseID = apns?["headers"]?["apns-collapse-id"]?.stringValue
            if let data = message["data"]?.objectValue, data["pushkit"] != nil || data["enc"] != nil {
                return (data, collapseID)
            }
            guard let payload = apns?["payload"]?.objectValue else { return nil }
            return (payload, collapseID)
        default:
            return nil
        }
    }

    /// The `pushkit` member: an object beside `aps`, or FCM `data`'s JSON string.
    private static func pushkitMember(_ payload: [String: JSONValue]) -> [String: JSONValue]? {
        switch payload["pushkit"] {
        case .object(let members)?: members
        case .string(let text)?: (try? JSONValue.parse(Data(text.utf8)))?.objectValue
        default: nil
        }
    }

    /// Whether a record line mentions `pushkit` at all: most records do not, and are not parsed.
    private static func mayCarryQuestion(_ line: [UInt8]) -> Bool {
        let needle = Array("pushkit".utf8)
        guard line.count >= needle.count else { return false }
        var index = line.startIndex
        let last = line.endIndex - needle.count
        while index <= last {
            if line[index] == needle[0], line[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
