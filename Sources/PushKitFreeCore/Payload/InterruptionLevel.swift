/// `aps.interruption-level`: how much a notification may interrupt (iOS 15+).
package enum InterruptionLevel: String, Sendable, CaseIterable, Hashable {
    /// Added to the list without lighting the screen or making a sound.
    case passive
    /// The default: lights the screen, may play a sound.
    case active
    /// Breaks through Focus and scheduled summaries (needs the Time Sensitive capability).
    case timeSensitive = "time-sensitive"
    /// Plays a sound even when muted (needs an entitlement from Apple).
    case critical

    /// Whether quiet hours leave this level alone: time-sensitive and critical alerts are never
    /// held back or made passive.
    package var breaksThroughQuietHours: Bool { self == .timeSensitive || self == .critical }
}
