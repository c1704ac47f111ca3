/// A setting of a send (the notification's fields and headers, and how hard delivery tries), named
/// for what it is, not for how a front end sets it.
///
/// The core's payload errors refer to settings through `SettingMessage`; `send-push` words them
/// with its flags (`--badge`), the endpoint with its JSON fields (`"badge"`), and the core's own
/// description uses `phrase` ("the badge").
package enum SendSetting: String, Sendable, CaseIterable {
    case title, subtitle, body, badge, sound, category, threadID, interruptionLevel, relevanceScore, targetContentID
    case image, volume, withdraw
    case contentAvailable
    case data, payloadFile, pushType, priority, expiration, collapseID, apnsID
    case liveActivity, contentState, timestamp, staleDate, dismissalDate, attributesType, attributes
    case inputPushToken, inputPushChannel, channel
    case retries, timeout, minimumInterval
    case encrypt, placeholderTitle, placeholderBody

    /// The setting in a sentence of the core's own messages.
    package var phrase: String {
        switch self {
        case .title: "the title"
        case .subtitle: "the subtitle"
        case .body: "the body"
        case .badge: "the badge"
        case .sound: "the sound"
        case .category: "the category"
        case .threadID: "the thread id"
        case .interruptionLevel: "the interruption level"
        case .relevanceScore: "the relevance score"
        case .targetContentID: "the target content id"
        case .image: "the image URL"
        case .volume: "the critical alert's volume"
        case .withdraw: "the id of the notification to take back"
        case .contentAvailable: "the background wake (content-available)"
        case .data: "the custom data"
        case .payloadFile: "the complete payload"
        case .pushType: "the push type"
        case .priority: "the priority"
        case .expiration: "the expiration"
        case .collapseID: "the collapse id"
        case .apnsID: "the apns-id"
        case .liveActivity: "the Live Activity event"
        case .contentState: "the content state"
        case .timestamp: "the timestamp"
        case .staleDate: "the stale date"
        case .dismissalDate: "the dismissal date"
        case .attributesType: "the attributes type"
        case .attributes: "the attributes"
        case .inputPushToken: "the input push token request"
        case .inputPushChannel: "the input push channel"
        case .channel: "the broadcast channel"
        case .retries: "retries"
        case .timeout: "the timeout"
        case .minimumInterval: "the minimum interval"
        case .encrypt: "content encryption"
        case .placeholderTitle: "the placeholder's title"
        case .placeholderBody: "the placeholder's body"
        }
    }
}

/// A message that names settings, worded by whoever shows it.
///
/// Written with string interpolation: `"\(setting: .badge) must be 0 or more, not \(badge)"`.
/// `description` words each setting with its `phrase`; `worded(naming:)` lets a front end use its
/// own names.
package struct SettingMessage: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// Literal text, or a setting for the front end to name.
    package enum Part: Sendable, Equatable {
        case text(String)
        case setting(SendSetting)
    }

    /// The message's text and settings, in order.
    package private(set) var parts: [Part]

    /// A message of plain text, naming no setting.
    package init(stringLiteral value: String) {
        parts = [.text(value)]
    }

    /// The message an interpolated literal built.
    package init(stringInterpolation: Interpolation) {
        parts = stringInterpolation.parts
    }

    /// Collects the parts of an interpolated message.
    package struct Interpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        /// An empty message; the sizes are not used.
        package init(literalCapacity: Int, interpolationCount: Int) {}

        /// Literal text, kept as it is (empty text is dropped).
        package mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { parts.append(.text(literal)) }
        }

        /// A setting, named by whoever shows the message.
        package mutating func appendInterpolation(setting: SendSetting) {
            parts.append(.setting(setting))
        }

        /// Another message, its settings still to be named.
        package mutating func appendInterpolation(_ message: SettingMessage) {
            parts += message.parts
        }

        /// Any other value, as `String(describing:)` gives it.
        package mutating func appendInterpolation<Value>(_ value: Value) {
            parts.append(.text(String(describing: value)))
        }
    }

    /// The settings this message names.
    package var settings: [SendSetting] {
        parts.compactMap { if case .setting(let setting) = $0 { setting } else { nil } }
    }

    /// The message with each setting named by `name`.
    package func worded(naming name: (SendSetting) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .setting(let setting): name(setting)
            }
        }.joined()
    }

    /// The message in the core's words: settings named by their `phrase`.
    package var description: String { worded(naming: \.phrase) }
}

/// An error whose message names settings, so each front end can word it for its users.
package protocol SettingError: PushKitError {
    /// The message, when it names settings; `nil` when `description` says it all.
    var settingMessage: SettingMessage? { get }
}

extension SettingError {
    /// The message with each setting named by `name` (a flag, a JSON field).
    package func worded(naming name: (SendSetting) -> String) -> String {
        settingMessage?.worded(naming: name) ?? description
    }
}

/// A value given for a setting that cannot be used: a usage error (64).
package struct InvalidSetting: SettingError, Equatable {
    /// What is wrong, naming the setting.
    package let message: SettingMessage

    /// An error with `message`.
    package init(_ message: SettingMessage) {
        self.message = message
    }

    /// Always 64: a usage error.
    package var exitStatus: ExitStatus { .usage }
    /// The message.
    package var settingMessage: SettingMessage? { message }
    /// The message in the core's words.
    package var description: String { message.description }
}
