#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Live Activity push (push type `liveactivity`): what ActivityKit reads from `aps` to start,
/// update or end an activity, and Apple's rules for which event carries what.
///
/// - start (push-to-start, iOS 17.2+): `attributes-type`, `attributes` and `content-state` are
///   required; sent to a device's push-to-start token.
/// - update: `content-state` is required; sent to the activity's own update token.
/// - end: `content-state` (the final state) and `dismissal-date` are optional.
///
/// `timestamp` (UNIX seconds) is always present: ActivityKit ignores a push older than the last
/// one it applied. `stale-date` is allowed with every event; `dismissal-date` only with end, the
/// only event Apple documents it for (it says when the ended activity leaves the Lock Screen; a date
/// in the past removes it at once). Attributes only start an activity: they are refused otherwise.
package struct LiveActivity: Sendable, Equatable {
    /// `aps.event`.
    package enum Event: String, Sendable, CaseIterable {
        case start, update, end
    }

    /// Whether the push starts, updates or ends the activity; it decides which members are required.
    package var event: Event
    /// `aps.timestamp`: UNIX seconds when the content was made.
    package var timestamp: Int
    /// `aps.content-state`: the activity's dynamic content, decoded by the app's `ContentState`.
    package var contentState: [String: JSONValue]?
    /// `aps.stale-date`: UNIX seconds after which the system shows the content as out of date.
    package var staleDate: Int?
    /// `aps.dismissal-date` (end only): UNIX seconds when the ended activity is removed.
    package var dismissalDate: Int?
    /// `aps.attributes-type` (start only): the name of the app's `ActivityAttributes` type.
    package var attributesType: String?
    /// `aps.attributes` (start only): the activity's static attributes.
    package var attributes: [String: JSONValue]?
    /// `aps.input-push-token: 1` (start only, iOS 18): asks APNs to issue an update token for the
    /// started activity, which the app receives in its `pushTokenUpdates`.
    package var inputPushToken = false
    /// `aps.input-push-channel` (start only, iOS 18): the id of a broadcast channel the started
    /// activity subscribes to, for updates sent with one broadcast.
    package var inputPushChannel: String?

    /// A Live Activity push.
    /// - Parameters:
    ///   - timestamp: UNIX seconds; `nil` takes the current second from `clock`.
    ///   - clock: the source of "now" when no timestamp is given (tests inject one).
    package init(
        event: Event, timestamp: Int? = nil, contentState: [String: JSONValue]? = nil, staleDate: Int? = nil,
        dismissalDate: Int? = nil, attributesType: String? = nil, attributes: [String: JSONValue]? = nil,
        clock: any WallClock = SystemClock()
    ) {
        self.event = event
        self.timestamp = timestamp ?? Int(clock.now().timeIntervalSince1970.rounded(.down))
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.attributesType = attributesType
        self.attributes = attributes
    }

    /// Checks the event's rules (see the type's summary), before anything is sent.
    /// - Throws: `PayloadError.invalid` (exit 65) naming the setting at fault.
    package func validate() throws(PayloadError) {
        let dates: [(SendSetting, Int?)] = [
            (.timestamp, timestamp), (.staleDate, staleDate), (.dismissalDate, dismissalDate),
        ]
        for (setting, value) in dates {
            if let value, value < 0 {
                throw .invalid("\(setting: setting) must be UNIX seconds (0 or more), not \(value)")
            }
        }
        if let attributesType, attributesType.isEmpty {
            throw .invalid("\(setting: .attributesType) is empty; give the name of the app's ActivityAttributes type")
        }
        let name: SettingMessage = "\(setting: .liveActivity) \(event.rawValue)"
        switch event {
        case .start:
            switch (attributesType, attributes) {
            case (nil, nil):
                throw .invalid(
                    "\(name) needs \(setting: .attributesType) and \(setting: .attributes) (the app's ActivityAttributes type name and its JSON object)"
                )
            case (nil, _):
                throw .invalid(
                    "\(name) needs \(setting: .attributesType) (the name of the app's ActivityAttributes type) as well as \(setting: .attributes)"
                )
            case (_, nil):
                throw .invalid(
                    "\(name) needs \(setting: .attributes) (the activity's attributes as a JSON object) as well as \(setting: .attributesType)"
                )
            default: break
            }
            if contentState == nil {
                throw .invalid(
                    "\(name) needs \(setting: .contentState) (the activity's first content state as a JSON object)")
            }
        case .update, .end:
            if attributesType != nil || attributes != nil {
                throw .invalid(
                    "\(name) takes no \(setting: .attributes) or \(setting: .attributesType): attributes are set once, when an activity starts"
                )
            }
            if event == .update, contentState == nil {
                throw .invalid("\(name) needs \(setting: .contentState) (the new content state as a JSON object)")
            }
        }
        if inputPushToken || inputPushChannel != nil {
            if event != .start {
                let flag: SendSetting = inputPushToken ? .inputPushToken : .inputPushChannel
                throw .invalid(
                    "\(setting: flag) is only for \(setting: .liveActivity) start (it says how the new activity gets its updates)"
                )
            }
            if inputPushToken, inputPushChannel != nil {
                throw .invalid(
                    "\(setting: .inputPushToken) and \(setting: .inputPushChannel) exclude each other: an activity is updated through its own token or through a channel"
                )
            }
            if let inputPushChannel, !BroadcastChannelID.isWellFormed(inputPushChannel) {
                throw .invalid(
                    "\(setting: .inputPushChannel) \"\(TerminalText.field(inputPushChannel))\" is not a channel id (base64, as APNs issues them)"
                )
            }
        }
        if dismissalDate != nil, event != .end {
            throw .invalid(
                "\(setting: .dismissalDate) is only for \(setting: .liveActivity) end (it says when the ended activity leaves the Lock Screen); use \(setting: .staleDate) with \(event.rawValue)"
            )
        }
    }

    /// The members this push adds to `aps`.
    package var apsMembers: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "event": .string(event.rawValue),
            "timestamp": .number(Double(timestamp)),
        ]
        if let contentState { members["content-state"] = .object(contentState) }
        if let staleDate { members["stale-date"] = .number(Double(staleDate)) }
        if let dismissalDate { members["dismissal-date"] = .number(Double(dismissalDate)) }
        if let attributesType { members["attributes-type"] = .string(attributesType) }
        if let attributes { members["attributes"] = .object(attributes) }
        if inputPushToken { members["input-push-token"] = .number(1) }
        if let inputPushChannel { members["input-push-channel"] = .string(inputPushChannel) }
        return members
    }

    /// Parses the JSON object a flag such as `--content-state` or `--attributes` was given.
    /// - Throws: `PayloadError.invalid` (exit 65) naming `flag`, for bad JSON or a value that is
    ///   not an object.
    package static func jsonObject(_ text: String, setting: SendSetting) throws(PayloadError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(text.utf8))
        } catch {
            throw .invalid("\(setting: setting) is not valid JSON: \(error.detail)")
        }
        guard let object = value.objectValue else {
            throw .invalid(
                "\(setting: setting) must be a JSON object such as '{\"progress\":0.5}', not \(value.typeName == "array" ? "an" : "a") \(value.typeName)"
            )
        }
        return object
    }
}
