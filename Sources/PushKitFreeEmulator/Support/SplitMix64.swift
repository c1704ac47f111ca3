/// A small, fast, seedable random source (SplitMix64), so runs that draw random numbers can be
/// repeated from their seed: the emulator's `--fail-rate` with `--seed`, and the tests that
/// shuffle faults or schedule kills.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// The generator whose sequence `seed` fixes; any value will do, 0 included.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits: the state advanced by the golden-ratio step, then mixed.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A uniform value in [0, 1).
    package mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
