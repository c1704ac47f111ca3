/// `--urgency low|normal|high`, for agent tools that should not have to know Apple's interruption
/// levels: low is `passive` (no sound, no lighting up), normal `active`, high `time-sensitive`
/// (breaks through Focus and quiet hours), critical `critical` (sounds even when muted; only with
/// the config's `critical_alerts`).
package enum Urgency: String, Sendable, CaseIterable {
    case low, normal, high, critical

    /// The urgencies, as messages list them: "low, normal, high or critical".
    package static let names = "low, normal, high or critical"

    /// The `aps.interruption-level` this urgency sends.
    package var interruptionLevel: InterruptionLevel {
        switch self {
        case .low: .passive
        case .normal: .active
        case .high: .timeSensitive
        case .critical: .critical
        }
    }
}
