#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// Per-agent subscriptions (`/registerSubscription`, `/triggerReplyFinished`): a device subscribes
/// to the replies of the assistant working in one directory (`cwd`).
///
/// - The agent key is the hex SHA-256 of `cwd`; the subscribed device joins the group of that name,
///   so `send-push --group <key>` reaches the same devices.
/// - The agent's display name and `cwd` are kept in the registry (`RegisteredDevices.recordAgent`,
///   the state file's top-level `"agents"` member), which every tool preserves on rewrite.
package enum AgentSubscription {
    /// Title and body when nothing better is known.
    package static let fallbackText = "Reply ready"

    /// The agent key of a working directory: 64 hex digits, also a valid collapse id.
    package static func key(cwd: String) -> String { HexDigest.sha256(cwd) }

    /// A parsed `/registerSubscription` body.
    package struct Request: Sendable, Equatable {
        /// The agent's working directory; never empty.
        package var cwd: String
        /// The hex SHA-256 of `cwd`: the group the device joins.
        package var agentKey: String
        /// `agent_display_name`, the title of the agent's notifications; `nil` when absent or empty.
        package var displayName: String?
        /// The device registration; its groups are merged with the agent's group when written.
        package var registration: DeviceRegistration
        /// Whether the body named groups itself (they then replace the device's groups, plus the agent's).
        package var replacesGroups: Bool

        /// `{"cwd", "installation_id", "apns_token", "agent_display_name"}`, plus the optional
        /// registration fields (`environment`, `groups`, `device_name`, `transport`, ...). Proxy-chat
        /// apps send their Firebase registration token as `fcm_token`; it is used when `apns_token`
        /// is absent, as the token it is: an FCM registration token registers an FCM device, an APNs
        /// token (hex) an APNs device.
        /// - Throws: `EndpointError` 400 for a missing or mistyped member, 422 for an invalid token.
        package init(_ json: JSONValue) throws(EndpointError) {
            guard var object = json.objectValue else {
                throw .badRequest("expected a JSON object, not \(json.typeName)")
            }
            let fields = RequestBodyFields(object)
            do throws(RegistrationBodyError) {
                guard let cwd = try fields.string("cwd"), !cwd.isEmpty else { throw .invalidBody("\"cwd\" is missing") }
                guard let installation = try fields.string("installation_id"), !installation.isEmpty else {
                    throw .invalidBody("\"installation_id\" is missing")
                }
                if try fields.string("apns_token") == nil {
                    guard let fcm = try fields.string("fcm_token") else {
                        throw .invalidBody(
                            "\"fcm_token\" is missing (or \"apns_token\" holding the device's APNs token)")
                    }
                    object["apns_token"] = .string(try Self.token(inFCMField: fcm, stated: fields.transport()))
                }
                self.cwd = cwd
                displayName = try fields.text("agent_display_name", limit: DeviceRegistration.endpointTextLimit).flatMap
                { $0.isEmpty ? nil : $0 }
                object["device_token"] = .string(installation)
                registration = try DeviceRegistration.registration(
                    fromBody: .object(object),
                    textLimit: DeviceRegistration.endpointTextLimit)
            } catch {
                throw EndpointError(error)
            }
            agentKey = AgentSubscription.key(cwd: cwd)
            replacesGroups = registration.groups != nil
        }

        /// The token a proxy-chat app sends in `fcm_token`, of the transport its shape (or
        /// `stated`, the body's `transport`) names; refused with 422 naming the member otherwise.
        static func token(
            inFCMField text: String, stated: PushTransport?
        ) throws(RegistrationBodyError) -> String {
            do throws(DeviceTokenError) {
                return try DeviceToken(validating: text, stated: stated, statedBy: "\"transport\"").text
            } catch {
                throw .invalidToken("\"fcm_token\": \(error.message)")
            }
        }

        /// Registers the device in `devices`, in the agent's group, and records the agent.
        /// - Parameter trusted: whether the caller presented the secret. The display name titles
        ///   every subscriber's notifications, so only a subscription with the secret records it
        ///   (the latest such one wins, as in the design, whose app always sends the secret).
        ///   Without it (an `--open-registration` peer) the device is subscribed and the name is
        ///   left as it is: anyone on an open network can send any `cwd`, so a name given there
        ///   says nothing about who runs the agent.
        /// - Throws: the `RegistryError` of a registration the registry refuses (the device id
        ///   names a group, a group names a device, the device's record cannot be read); nothing is
        ///   changed then.
        package func apply(
            to devices: inout RegisteredDevices, at now: Date, trusted: Bool = true
        ) throws(RegistryError) -> RegisteredDevices.RegistrationOutcome {
            var registration = self.registration
            var groups = replacesGroups ? (registration.groups ?? []) : (devices[registration.deviceID]?.groups ?? [])
            if !groups.contains(agentKey) { groups.append(agentKey) }
            registration.groups = groups
            let outcome = try devices.register(registration, at: now)
            devices.recordAgent(agentKey, RegisteredAgent(cwd: cwd, displayName: trusted ? displayName : nil))
            return outcome
        }
    }

    /// The display name an agent subscribed with, if any.
    package static func displayName(agentKey: String, in devices: RegisteredDevices) -> String? {
        devices.agent(agentKey)?.displayName
    }

    /// A parsed `/triggerReplyFinished` body: `{"cwd", "conversation_id", "message_preview", "finished_at"}`.
    package struct ReplyFinished: Sendable, Equatable {
        /// The working directory of the agent that replied; never empty.
        package var cwd: String
        /// `conversation_id`, passed on in the notification's data.
        package var conversationID: String?
        /// `message_preview`: the notification's body, cut like `send-push --hook`'s.
        package var preview: String?
        /// `finished_at` as sent, passed on in the notification's data.
        package var finishedAt: String?
        /// The hex SHA-256 of `cwd`: the group its subscribers joined.
        package var agentKey: String { AgentSubscription.key(cwd: cwd) }

        /// - Throws: `EndpointError` 400 for a missing `cwd` or a mistyped member.
        package init(_ json: JSONValue) throws(EndpointError) {
            guard let object = json.objectValue else {
                throw .badRequest("expected a JSON object, not \(json.typeName)")
            }
            let fields = RequestBodyFields(object)
            do throws(RegistrationBodyError) {
                guard let cwd = try fields.string("cwd"), !cwd.isEmpty else { throw .invalidBody("\"cwd\" is missing") }
                self.cwd = cwd
                conversationID = try fields.string("conversation_id")
                preview = try fields.string("message_preview")
                finishedAt = try fields.string("finished_at")
            } catch {
                throw EndpointError(error)
            }
        }

        /// The notification: titled with the agent's display name, else the last component of
        /// `cwd`, else "Reply ready"; the preview as body (cut like `send-push --hook`'s), else
        /// "Reply ready"; `data` with `type`, `server_key` (when there is a secret), `cwd` and
        /// `conversation_id`; collapse id and thread id the agent key, so a newer reply replaces the
        /// older banner and replies group per agent.
        package func specification(displayName: String?, serverKey: String?) -> PushSpecification {
            var spec = PushSpecification()
            let lastComponent = cwd.split(separator: "/").last.map(String.init)
            spec.content.title = displayName ?? lastComponent ?? AgentSubscription.fallbackText
            let text = (preview ?? "").trimmingWhitespace
            let limit = PushSpecification.legacyPreviewLimit
            spec.content.body =
                text.isEmpty
                ? AgentSubscription.fallbackText
                : text.count > limit ? String(text.prefix(limit)) + "..." : text
            spec.content.threadID = agentKey
            var data: [String: JSONValue] = ["type": "reply_finished", "cwd": .string(cwd)]
            if let serverKey { data["server_key"] = .string(serverKey) }
            if let conversationID { data["conversation_id"] = .string(conversationID) }
            if let finishedAt { data["finished_at"] = .string(finishedAt) }
            spec.content.customData = data
            spec.collapseID = agentKey
            return spec
        }
    }
}
