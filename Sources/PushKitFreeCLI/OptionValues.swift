import ArgumentParser
import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The core's fixed-value types as option values: argument parser checks them and `--help` lists
// them, so the core receives a typed value, never a string to check again.

// Each lists its values as `rawValueStrings`, what argument parser's default gives, without its
// key path: argument parser builds every option again for each of the four or five times it
// reflects a command, and instantiating that key path each time was a seventh of a
// `send-push --dry-run` (bench/README.md).

extension APNsPushType: ExpressibleByArgument {
    /// Any case: `--push-type ALERT` is `alert`, as APNs reads the header.
    package init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }

    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension APNsPriority: ExpressibleByArgument {
    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension InterruptionLevel: ExpressibleByArgument {
    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension Urgency: ExpressibleByArgument {
    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension QuietPolicy: ExpressibleByArgument {
    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension LiveActivity.Event: ExpressibleByArgument {
    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension APNsEnvironment: ExpressibleByArgument {
    /// `production` or `sandbox`, also as `prod`, `development` and `dev`.
    package init?(argument: String) {
        self.init(userText: argument)
    }

    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension PushTransport: ExpressibleByArgument {
    /// `apns` or `fcm`, any case.
    package init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }

    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension DueSchedule: ExpressibleByArgument {
    /// The raw values, for `--help` and completion.
    package static var allValueStrings: [String] { rawValueStrings }
}

extension CaseIterable where Self: RawRepresentable, RawValue: CustomStringConvertible {
    /// Every case's raw value as text, in declaration order.
    package static var rawValueStrings: [String] { allCases.map { $0.rawValue.description } }
}

/// An instant on the command line: ISO 8601 with a zone (`2026-11-24T07:00:00Z`,
/// `2026-11-24T07:00:00-05:00`) or whole UNIX seconds.
package struct InstantArgument: ExpressibleByArgument, Sendable {
    /// The instant given.
    package let date: Date

    /// Whole UNIX seconds or ISO 8601 with a zone; `nil`, a usage error, for anything else.
    package init?(argument: String) {
        if let seconds = Int(argument) {
            date = Date(timeIntervalSince1970: TimeInterval(seconds))
        } else if let parsed = ISO8601Timestamp.parse(argument) {
            date = parsed
        } else {
            return nil
        }
    }
}
