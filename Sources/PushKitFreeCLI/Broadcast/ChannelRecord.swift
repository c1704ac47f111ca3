import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A broadcast channel this project created, under the name the user gave it.
package struct ChannelRecord: Sendable, Equatable {
    /// The user's name for it (`--channel NAME`).
    package var name: String
    /// APNs' `apns-channel-id`.
    package var id: String
    /// The environment it lives in: a channel exists in one environment only.
    package var environment: APNsEnvironment
    /// Its message storage policy; `nil` when the file names one this version does not know.
    package var storagePolicy: ChannelStoragePolicy?
    /// The app it belongs to.
    package var bundleID: String
    /// When it was created.
    package var createdAt: Date

    /// A record of channel `id`, as the user named it.
    package init(
        name: String, id: String, environment: APNsEnvironment, storagePolicy: ChannelStoragePolicy?,
        bundleID: String, createdAt: Date
    ) {
        self.name = name
        self.id = id
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.bundleID = bundleID
        self.createdAt = createdAt
    }

    /// The longest name, in characters.
    package static let maximumNameLength = 64

    /// Why `name` cannot name a channel, or `nil` when it can: 1 to 64 letters, digits, `.`, `_`
    /// or `-`, not starting with `-` (it would read as a flag).
    package static func problem(withName name: String) -> String? {
        if name.isEmpty { return "a channel name cannot be empty" }
        if name.count > maximumNameLength {
            return "channel name \"\(TerminalText.field(name))\" is longer than \(maximumNameLength) characters"
        }
        if name.hasPrefix("-") { return "channel name \"\(TerminalText.field(name))\" cannot start with '-'" }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "." || scalar == "_" || scalar == "-")
        }
        if !allowed {
            return "channel name \"\(TerminalText.field(name))\" may hold only letters, digits, '.', '_' and '-'"
        }
        return nil
    }

    /// The stored form: `{"id", "environment", "storage", "bundle_id", "created_at"}`.
    var jsonMembers: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "id": .string(id), "environment": .string(environment.rawValue), "bundle_id": .string(bundleID),
            "created_at": .string(ISO8601Timestamp.format(createdAt)),
        ]
        if let storagePolicy { members["storage"] = .string(storagePolicy.name) }
        return members
    }

    /// Reads a stored entry; `nil` when it lacks the id or environment.
    init?(name: String, json: JSONValue) {
        guard let id = json["id"]?.stringValue, !id.isEmpty,
            let environment = json["environment"]?.stringValue.flatMap(APNsEnvironment.init(rawValue:))
        else { return nil }
        self.init(
            name: name, id: id, environment: environment,
            storagePolicy: json["storage"]?.stringValue.flatMap(ChannelStoragePolicy.init(name:)),
            bundleID: json["bundle_id"]?.stringValue ?? "",
            createdAt: json["created_at"]?.stringValue.flatMap(ISO8601Timestamp.parse) ?? Date(timeIntervalSince1970: 0)
        )
    }
}
