import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("registry: ISO 8601 timestamps")
struct RegistryTimestampTests {
    let foundation = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    @Test("formats UTC with milliseconds, as Foundation does")
    func formatsLikeFoundation() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)
            // A fifth of a millisecond past it, so truncating and rounding agree.
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000 + 0.0002)
            #expect(ISO8601Timestamp.format(date) == foundation.format(date), "\(milliseconds)")
        }
        #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
    }

    @Test("parses what it formats, to the millisecond")
    func roundTrips() throws {
        for milliseconds in [0, 1, 999, 1_714_564_800_123, -1, -86_400_001, 253_402_300_799_999] as [Int64] {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let parsed = try #require(ISO8601Timestamp.parse(ISO8601Timestamp.format(date)))
            #expect(abs(parsed.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005)
        }
    }

    @Test(
        "reads with or without fraction, Z or offsets",
        arguments: [
            ("2024-05-01T12:00:00Z", 1_714_564_800.0),
            ("2024-05-01T12:00:00.250Z", 1_714_564_800.25),
            ("2024-05-01T12:00:00.123456789Z", 1_714_564_800.123456789),
            ("2024-05-01T14:00:00+02:00", 1_714_564_800.0),
            ("2024-05-01T07:30:00-04:30", 1_714_564_800.0),
            ("2024-05-01t12:00:00z", 1_714_564_800.0),
        ])
    func parsesVariants(text: String, seconds: Double) throws {
        let date = try #require(ISO8601Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(
        "refuses what is not a timestamp",
        arguments: [
            "", "yesterday", "2024-05-01", "2024-05-01T12:00:00", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
            "2024-05-01T24:00:00Z", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00Z ", "2024-05-01 12:00:00Z",
        ])
    func refusesGarbage(text: String) {
        #expect(ISO8601Timestamp.parse(text) == nil)
    }
}
