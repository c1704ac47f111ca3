import PushKitFreeCore
import Synchronization

/// The broadcast channels the emulator's clients created, per bundle id (the emulator plays one
/// environment, so this is Apple's "per app and environment"). Thread-safe: every connection of
/// both listeners shares one.
package final class EmulatorChannels: Sendable {
    /// Apple's limit: 10,000 channels per app and environment.
    package static let appleLimit = 10_000

    /// How many channels one bundle id may have; more answers 400 CannotCreateChannelConfig.
    package let limit: Int
    private let channels = Mutex<[String: [String: ChannelStoragePolicy]]>([:])

    /// No channels yet, and at most `limit` per bundle id (`--channel-limit`; Apple's unless given).
    package init(limit: Int = EmulatorChannels.appleLimit) {
        self.limit = limit
    }

    /// Makes a channel with a new id (16 random bytes, base64, as APNs' look); `nil` when the bundle
    /// id has `limit` channels already.
    package func create(bundleID: String, storagePolicy: ChannelStoragePolicy) -> String? {
        var generator = SystemRandomNumberGenerator()
        return channels.withLock { channels -> String? in
            guard channels[bundleID, default: [:]].count < limit else { return nil }
            var id: String
            repeat {
                id = Self.base64((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            } while channels[bundleID]?[id] != nil
            channels[bundleID, default: [:]][id] = storagePolicy
            return id
        }
    }

    /// The storage policy of channel `id`, `nil` when the bundle id has no such channel.
    package func storagePolicy(bundleID: String, id: String) -> ChannelStoragePolicy? {
        channels.withLock { $0[bundleID]?[id] }
    }

    /// Deletes channel `id`; `false` when there was none.
    package func delete(bundleID: String, id: String) -> Bool {
        channels.withLock { $0[bundleID]?.removeValue(forKey: id) != nil }
    }

    /// Every channel id of the bundle id, sorted.
    package func ids(bundleID: String) -> [String] {
        channels.withLock { ($0[bundleID] ?? [:]).keys.sorted() }
    }

    /// How many channels exist, over all bundle ids.
    package var count: Int {
        channels.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                if position <= chunk.count {
                    output.append(alphabet[Int(value >> (18 - 6 * position)) & 0x3f])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
