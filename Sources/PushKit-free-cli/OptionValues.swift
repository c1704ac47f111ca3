import ArgumentParser
import PushKitFreeCore

// The core's fixed-value types as option values: argument parser checks them and `--help` lists
// them, so the core receives a typed value, never a string to check again.

extension APNsPushType: ExpressibleByArgument {
    /// Any case: `--push-type ALERT` is `alert`, as APNs reads the header.
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}

extension APNsPriority: ExpressibleByArgument {}

extension InterruptionLevel: ExpressibleByArgument {}

extension Urgency: ExpressibleByArgument {}

extension QuietPolicy: ExpressibleByArgument {}

extension LiveActivity.Event: ExpressibleByArgument {}

extension APNsEnvironment: ExpressibleByArgument {
    /// `production` or `sandbox`, also as `prod`, `development` and `dev`.
    public init?(argument: String) {
        self.init(userText: argument)
    }
}
