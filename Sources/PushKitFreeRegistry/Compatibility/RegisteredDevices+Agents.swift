import PushKitFreeCore

/// An agent devices subscribe to, as the proxy-chat design keeps it (`agents/{agentKey}` there):
/// its working directory and the name its notifications are titled with. Devices subscribe by
/// joining the group named by the agent key.
///
/// Retirement: with the proxy-chat routes (`ProxyChatRoutes`); a file that keeps its `agents`
/// member keeps working, as any top-level member does.
package struct RegisteredAgent: Sendable, Equatable {
    /// The agent's working directory (`cwd`).
    package var cwd: String?
    /// The name the agent subscribed with (`display_name`).
    package var displayName: String?

    /// An agent; `nil` for what is not known, which `recordAgent` then leaves as recorded.
    package init(cwd: String? = nil, displayName: String? = nil) {
        self.cwd = cwd
        self.displayName = displayName
    }
}

extension RegisteredDevices {
    /// The top-level member of the state file (and the PostgreSQL registry's members) that holds the
    /// agents: `{"<agent key>": {"cwd": ..., "display_name": ...}}`.
    package static let agentsMember = "agents"

    /// The agent `key` names; `nil` when none subscribed.
    package func agent(_ key: String) -> RegisteredAgent? {
        guard let object = otherFields[Self.agentsMember]?[key]?.objectValue else { return nil }
        return RegisteredAgent(cwd: object["cwd"]?.stringValue, displayName: object["display_name"]?.stringValue)
    }

    /// Records `agent` under `key`, keeping members of its entry these tools do not know; a `nil`
    /// field leaves the recorded one. Changes nothing when the entry would not change.
    package mutating func recordAgent(_ key: String, _ agent: RegisteredAgent) {
        var agents = otherFields[Self.agentsMember]?.objectValue ?? [:]
        var entry = agents[key]?.objectValue ?? [:]
        if let cwd = agent.cwd { entry["cwd"] = .string(cwd) }
        if let displayName = agent.displayName { entry["display_name"] = .string(displayName) }
        guard agents[key] != .object(entry) else { return }
        agents[key] = .object(entry)
        otherFields[Self.agentsMember] = .object(agents)
    }
}
