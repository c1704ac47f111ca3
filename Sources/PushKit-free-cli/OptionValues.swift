import ArgumentParser
import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

extension DueSchedule: ExpressibleByArgument {}

/// An instant on the command line: ISO 8601 with a zone (`2026-11-24T07:00:00Z`,
/// `2026-11-24T07:00:00-05:00`) or whole UNIX seconds.
public struct InstantArgument: ExpressibleByArgument, Sendable {
    public let date: Date

    public init?(argument: String) {
        if let seconds = Int(argument) {
            date = Date(timeIntervalSince1970: TimeInterval(seconds))
        } else if let parsed = ISO8601Timestamp.parse(argument) {
            date = parsed
        } else {
            return nil
        }
    }

    public static var defaultValueDescription: String { "time" }
}
