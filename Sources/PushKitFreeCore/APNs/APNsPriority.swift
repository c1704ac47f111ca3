/// The `apns-priority` header: how urgently APNs delivers.
///
/// APNs accepts exactly 10, 5 and 1; background notifications must use 5.
package enum APNsPriority: Int, Sendable, CaseIterable, Hashable {
    /// Deliver at once (the default for every push type but background).
    case immediate = 10
    /// Deliver considering the device's power; required for background notifications.
    case considerPower = 5
    /// Prioritize the device's power over everything; may be delayed or dropped.
    case low = 1

    /// The priority APNs assumes when the header is absent.
    package static func `default`(for pushType: APNsPushType) -> APNsPriority {
        pushType == .background ? .considerPower : .immediate
    }

    /// Whether APNs accepts this priority for `pushType` (background must be 5).
    package func isAllowed(for pushType: APNsPushType) -> Bool {
        pushType != .background || self == .considerPower
    }
}
