/// Makes random (version 4) UUIDs as lowercase canonical text, fast: a xoshiro256** generator
/// seeded once from the system's random source, no system call or formatting per UUID.
///
/// For identifiers such as `apns-id`, which must be unique, not unguessable. Not thread-safe: one
/// generator per connection.
struct RandomUUIDGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator seeded from `SystemRandomNumberGenerator`.
    init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: (system.next(), system.next(), system.next(), system.next()))
    }

    /// A generator with a fixed seed (tests); an all-zero seed is replaced.
    init(seed: (UInt64, UInt64, UInt64, UInt64)) {
        state = seed == (0, 0, 0, 0) ? (1, 2, 3, 4) : seed
    }

    private mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }

    /// A new UUID, e.g. `3f2b8c1e-9d4a-4c7b-8e21-5a6f0d9c2b17`.
    mutating func uuidString() -> String {
        var high = next(), low = next()
        high = (high & ~0xF000) | 0x4000 // version 4
        low = (low & ~(0xC << 60)) | (0x8 << 60) // RFC 4122 variant
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    buffer[index] = digits.utf8Start[Int((value >> UInt64(shift)) & 0xF)]
                    index += 1
                }
            }
            func dash() {
                buffer[index] = UInt8(ascii: "-")
                index += 1
            }
            put(high >> 32, nibbles: 8)
            dash()
            put(high >> 16, nibbles: 4)
            dash()
            put(high, nibbles: 4)
            dash()
            put(low >> 48, nibbles: 4)
            dash()
            put(low, nibbles: 12)
            return 36
        }
    }
}
