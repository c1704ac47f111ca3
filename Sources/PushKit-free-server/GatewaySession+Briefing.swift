import PushKitFreeCore

extension GatewaySession {
    /// The change a `briefing_config` makes to its device's record.
    static func briefingChange(
        _ members: [String: JSONValue]
    ) throws(EndpointError) -> @Sendable (inout DeviceRecord) -> Void {
        // Wired to the core's BriefingSettings once it lands on main.
        throw .unavailable("briefing_config is not served yet")
    }
}
