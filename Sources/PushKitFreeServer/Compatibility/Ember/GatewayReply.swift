import PushKitFreeCore

/// The messages the Ember gateway answers with: one JSON object with a `type` for each message.
package enum GatewayReply {
    /// `{"type": "registered"}`, after `register`.
    package static let registered: JSONValue = ["type": "registered"]
    /// `{"type": "ack"}`, after a command taken (`briefing_config`).
    package static let ack: JSONValue = ["type": "ack"]
    /// `{"type": "pong"}`, after `ping`.
    package static let pong: JSONValue = ["type": "pong"]

    /// `{"type": "device_token_confirmed", "device_id": ...}`, after `device_token`: the token is on
    /// disk. `device_id` (an addition to the protocol, which clients ignore) is the device's id in
    /// the registry, for a gateway that forwards later messages over HTTP.
    package static func deviceTokenConfirmed(deviceID: String) -> JSONValue {
        ["type": "device_token_confirmed", "device_id": .string(deviceID)]
    }

    /// `{"type": "error", "message": ...}`.
    package static func error(_ message: String) -> JSONValue {
        ["type": "error", "message": .string(message)]
    }
}
