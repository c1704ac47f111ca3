/// Which APNs service a device token belongs to.
///
/// TestFlight and App Store builds register production tokens; Xcode debug builds register sandbox
/// (development) tokens. The same phone has a different token in each.
package enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    case production
    case sandbox

    /// Apple's host for this environment.
    package var defaultBaseURL: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .sandbox: "https://api.sandbox.push.apple.com"
        }
    }

    /// Apple's channel management host for this environment (broadcast channels): its own host and
    /// port, 2196 for production and 2195 for the sandbox.
    package var defaultManagementURL: String {
        switch self {
        case .production: "https://api-manage-broadcast.push.apple.com:2196"
        case .sandbox: "https://api-manage-broadcast.sandbox.push.apple.com:2195"
        }
    }

    /// The other environment: where a token answered `BadDeviceToken` may belong.
    package var other: APNsEnvironment {
        self == .production ? .sandbox : .production
    }

    /// Parses the spellings users write: `production`/`prod`, `sandbox`/`development`/`dev` (any case).
    package init?(userText: String) {
        switch userText.lowercased() {
        case "production", "prod": self = .production
        case "sandbox", "development", "dev": self = .sandbox
        default: return nil
        }
    }
}
