import PushKitFreeCore
/// Finding the devices that hold a token, and whether a group has devices, without looking at
/// every device.
///
/// A registry read once and changed many times (the one `register-apns serve` keeps between write
/// batches, see `StateFileRegistry`) carries an index of its device and push-to-start tokens and of
/// its groups' sizes, kept right by every change `RegisteredDevices` makes. A registry read for one change (a command line
/// run) has none and scans: building the index costs more than the one scan it would save.
extension RegisteredDevices {
    /// Device ids by token, for `deviceIDs(holding:)` and for clearing a push-to-start token that
    /// moved to another install.
    struct TokenIndex: Sendable, Equatable {
        /// The ids holding each device token: one in a registry the tools wrote, possibly more in a
        /// flat map another program wrote.
        private(set) var holders: [DeviceToken: Holders] = [:]
        /// The ids holding each push-to-start token.
        private(set) var startHolders: [DeviceToken: Holders] = [:]
        /// How many devices each group has (groups without one are not kept), for the rule that a
        /// name is a device id or a group (`RegisteredDevices+Names.swift`).
        private(set) var groupSizes: [String: Int] = [:]

        /// The ids holding one token, sorted, without an array for the usual single one.
        enum Holders: Sendable, Equatable {
            case one(String)
            case several([String])

            var ids: [String] {
                switch self {
                case .one(let id): [id]
                case .several(let ids): ids
                }
            }

            func adding(_ id: String) -> Holders {
                switch self {
                case .one(let other): other == id ? self : .several(other < id ? [other, id] : [id, other])
                case .several(let ids): ids.contains(id) ? self : .several((ids + [id]).sorted())
                }
            }

            func removing(_ id: String) -> Holders? {
                switch self {
                case .one(let other): return other == id ? nil : self
                case .several(let ids):
                    let rest = ids.filter { $0 != id }
                    return rest.count == 1 ? .one(rest[0]) : (rest.isEmpty ? nil : .several(rest))
                }
            }
        }

        /// The index of `devices`.
        init(_ devices: [RegisteredDevice]) {
            holders.reserveCapacity(devices.count)
            for device in devices { insert(device.id, device.record) }
        }

        /// Indexes the tokens and groups of `record`, held by `id`.
        mutating func insert(_ id: String, _ record: DeviceRecord) {
            Self.add(id, record.token, to: &holders)
            if let start = record.pushToStartToken { Self.add(id, start, to: &startHolders) }
            for group in Set(record.groups) { groupSizes[group, default: 0] += 1 }
        }

        /// Forgets the tokens and groups of `record`, which `id` held.
        mutating func remove(_ id: String, _ record: DeviceRecord) {
            Self.drop(id, record.token, from: &holders)
            if let start = record.pushToStartToken { Self.drop(id, start, from: &startHolders) }
            for group in Set(record.groups) {
                let size = (groupSizes[group] ?? 1) - 1
                groupSizes[group] = size > 0 ? size : nil
            }
        }

        private static func add(_ id: String, _ token: DeviceToken, to map: inout [DeviceToken: Holders]) {
            map[token] = map[token].map { $0.adding(id) } ?? .one(id)
        }

        private static func drop(_ id: String, _ token: DeviceToken, from map: inout [DeviceToken: Holders]) {
            guard let current = map[token] else { return }
            map[token] = current.removing(id)
        }
    }

    /// Builds the token index, when there is none, so that finding a token's devices no longer
    /// scans the registry. For a registry that will take many changes.
    mutating func indexTokens() {
        if tokenIndex == nil { tokenIndex = TokenIndex(devices) }
    }

    /// Builds the token index when this registry is to keep one (`indexesTokens`) and has none yet:
    /// called before a change that looks tokens up.
    mutating func prepareTokenLookups() {
        if indexesTokens { indexTokens() }
    }

    /// Whether the registry carries a token index (for tests).
    var isTokenIndexed: Bool { tokenIndex != nil }

    /// The index this registry's devices would have: for tests, to check the kept one against.
    var rebuiltTokenIndex: TokenIndex { TokenIndex(devices) }

    /// The ids of the devices whose push-to-start token is `token`, sorted.
    func deviceIDs(holdingPushToStart token: DeviceToken) -> [String] {
        guard let tokenIndex else {
            return devices.compactMap { $0.record.pushToStartToken == token ? $0.id : nil }
        }
        return tokenIndex.startHolders[token]?.ids ?? []
    }
}
