#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads and writes the ISO 8601 timestamps of the state file, fast enough for 100,000 devices.
///
/// Writes UTC with milliseconds, `2024-05-01T12:00:00.123Z`: APNs reports a 410's `timestamp` in
/// milliseconds, and comparing a registration with it needs the same precision. Reads the RFC 3339
/// profile of ISO 8601: with or without a fraction (any number of digits), `Z` or a `±HH:MM` offset.
/// `Date.ISO8601FormatStyle` reads either with or without fractional seconds depending on how it is
/// configured, and costs microseconds per call; this is plain integer arithmetic.
package enum ISO8601Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounded to the nearest millisecond.
    package static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the formatted `date` to `bytes` (the state file's writer uses this directly).
    package static func append(_ date: Date, to bytes: inout [UInt8]) {
        let exact = (date.timeIntervalSince1970 * 1000).rounded()
        append(
            milliseconds: exact.isNaN ? 0 : Int64(min(max(exact, -62_167_219_200_000), 253_402_300_799_999)), to: &bytes
        )
    }

    /// Appends `milliseconds` since 1970 as `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes), clamped to the
    /// years 0000...9999.
    package static func append(milliseconds unclamped: Int64, to bytes: inout [UInt8]) {
        // Clamped to years 0000...9999, the range the four-digit year can show.
        let milliseconds = min(max(unclamped, -62_167_219_200_000), 253_402_300_799_999)
        func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
            let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
            return (quotient, value - quotient * divisor)
        }
        let (seconds, millisecond) = floorDivide(milliseconds, 1000)
        let (days, second) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        let zero = UInt8(ascii: "0")
        func digit(_ value: Int64) -> UInt8 { zero + UInt8(truncatingIfNeeded: value % 10) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            text[0] = digit(year / 1000)
            text[1] = digit(year / 100)
            text[2] = digit(year / 10)
            text[3] = digit(year)
            text[4] = UInt8(ascii: "-")
            text[5] = digit(month / 10)
            text[6] = digit(month)
            text[7] = UInt8(ascii: "-")
            text[8] = digit(day / 10)
            text[9] = digit(day)
            text[10] = UInt8(ascii: "T")
            let hour = second / 3600, minute = second / 60 % 60, secondOfMinute = second % 60
            text[11] = digit(hour / 10)
            text[12] = digit(hour)
            text[13] = UInt8(ascii: ":")
            text[14] = digit(minute / 10)
            text[15] = digit(minute)
            text[16] = UInt8(ascii: ":")
            text[17] = digit(secondOfMinute / 10)
            text[18] = digit(secondOfMinute)
            text[19] = UInt8(ascii: ".")
            text[20] = digit(millisecond / 100)
            text[21] = digit(millisecond / 10)
            text[22] = digit(millisecond)
            text[23] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Parses an RFC 3339 timestamp; `nil` when `text` is not one (or names a day that does not exist).
    package static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// Parses the UTF-8 bytes of an RFC 3339 timestamp (the state file reader passes them straight
    /// from the file).
    package static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var offset = 0
        func number(_ count: Int) -> Int64? {
            guard bytes.count - offset >= count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                let byte = bytes[offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                offset += 1
            }
            return value
        }
        func skip(_ allowed: UInt8, or other: UInt8? = nil) -> Bool {
            guard offset < bytes.count, bytes[offset] == allowed || bytes[offset] == other else { return false }
            offset += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
            let day = number(2), skip(UInt8(ascii: "T"), or: UInt8(ascii: "t")),
            let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2), skip(UInt8(ascii: ":")),
            let second = number(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if skip(UInt8(ascii: ".")) {
            var scale = 0.1
            let start = offset
            while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
                fraction += Double(bytes[offset] - UInt8(ascii: "0")) * scale
                scale /= 10
                offset += 1
            }
            guard offset > start else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if skip(UInt8(ascii: "Z"), or: UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[offset] == UInt8(ascii: "-") ? -1 : 1
            offset += 1
            guard let hours = number(2), skip(UInt8(ascii: ":")), let minutes = number(2), hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard offset == bytes.count else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
