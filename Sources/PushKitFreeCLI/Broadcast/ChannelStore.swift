import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The channels this project created, by name: `channels.json` in the state directory, beside the
/// devices file.
///
/// `{"version": 1, "channels": {"<name>": {"id", "environment", "storage", "bundle_id",
/// "created_at"}}}`. Writers hold `channels.json.lock` and replace the file atomically, as the
/// device registry does; members this version does not know are kept.
package struct ChannelStore: Sendable {
    /// The file's path.
    package let path: String

    /// The channels file at `path`.
    package init(path: String) {
        self.path = path
    }

    /// `channels.json` in `stateDirectory`.
    package init(stateDirectory: String) {
        self.init(path: stateDirectory + "/channels.json")
    }

    /// The lock file writers hold: `<file>.lock`.
    package var lockPath: String { path + ".lock" }

    /// Every recorded channel, sorted by name; none when the file does not exist.
    /// - Throws: `BroadcastChannelError.corruptStore` (65) or `.io` (74).
    package func load() throws(BroadcastChannelError) -> [ChannelRecord] {
        Self.records(in: try read())
    }

    /// The channel named `name`, if recorded.
    package func record(named name: String) throws(BroadcastChannelError) -> ChannelRecord? {
        try load().first { $0.name == name }
    }

    /// Records `record`, unless its name is taken.
    /// - Throws: `BroadcastChannelError.nameTaken` (65) and the file unchanged when the name is recorded
    ///   already; `.cannotCreate` (73) or `.io` (74) when it cannot be written.
    package func add(_ record: ChannelRecord) throws(BroadcastChannelError) {
        try update { (channels: inout [String: JSONValue]) throws(BroadcastChannelError) in
            if let existing = channels[record.name], let known = ChannelRecord(name: record.name, json: existing) {
                throw .nameTaken(record.name, id: known.id, path: path)
            }
            channels[record.name] = .object(record.jsonMembers)
        }
    }

    /// Forgets the channel named `name`; returns it, or `nil` when it was not recorded (the file is
    /// then left as it is).
    @discardableResult
    package func remove(named name: String) throws(BroadcastChannelError) -> ChannelRecord? {
        var removed: ChannelRecord?
        try update { (channels: inout [String: JSONValue]) throws(BroadcastChannelError) in
            guard let entry = channels.removeValue(forKey: name) else { return }
            removed = ChannelRecord(name: name, json: entry)
        }
        return removed
    }

    /// Whether the name is free, checked before asking APNs for a channel.
    package func checkNameIsFree(_ name: String) throws(BroadcastChannelError) {
        if let known = try record(named: name) { throw .nameTaken(name, id: known.id, path: path) }
    }

    // MARK: File

    private func read() throws(BroadcastChannelError) -> [String: JSONValue] {
        let data: Data?
        do {
            data = try PosixFile.readIfPresent(path)
        } catch {
            throw .io(error)
        }
        guard let data, !data.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) else { return [:] }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw .corruptStore(path: path, detail: error.detail)
        }
        guard let object = value.objectValue else {
            throw .corruptStore(path: path, detail: "it is a JSON \(value.typeName), not an object")
        }
        guard let channels = object["channels"] else { return [:] }
        guard let map = channels.objectValue else {
            throw .corruptStore(path: path, detail: "\"channels\" is a \(channels.typeName), not an object")
        }
        return map
    }

    private static func records(in channels: [String: JSONValue]) -> [ChannelRecord] {
        channels.compactMap { ChannelRecord(name: $0.key, json: $0.value) }.sorted { $0.name < $1.name }
    }

    /// Runs `change` on the channels under the lock and writes the result when it changed them.
    private func update(
        _ change: (inout [String: JSONValue]) throws(BroadcastChannelError) -> Void
    ) throws(BroadcastChannelError) {
        let directory = PosixFile.parentDirectory(of: path)
        let lock: FileLock
        do {
            if !directory.isEmpty { try PosixFile.createPrivateDirectory(directory) }
            lock = try FileLock(exclusiveAt: lockPath)
        } catch {
            throw error.exitStatus == .cannotCreate ? .cannotCreate(error) : .io(error)
        }
        defer { withExtendedLifetime(lock) {} }
        let before = try read()
        var channels = before
        try change(&channels)
        guard channels != before else { return }
        let file = JSONValue.object(["version": .number(1), "channels": .object(channels)])
        do {
            try PosixFile.replaceAtomically(path, with: file.serialized(pretty: true) + Data("\n".utf8))
        } catch {
            throw error.exitStatus == .cannotCreate ? .cannotCreate(error) : .io(error)
        }
    }
}
