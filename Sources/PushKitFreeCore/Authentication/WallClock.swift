#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The source of "now" for anything that ages: provider tokens, registry timestamps.
/// Tests inject a clock they can move; the tools use `SystemClock`.
package protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The machine's real-time clock.
package struct SystemClock: WallClock {
    /// The system clock.
    package init() {}
    /// The current system time, `Date()`.
    package func now() -> Date { Date() }
}
