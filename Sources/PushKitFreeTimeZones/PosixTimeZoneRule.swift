/// Local time as a POSIX `TZ` string describes it: a standard time and, optionally, a daylight
/// saving time with the two yearly changes between them, as in `CET-1CEST,M3.5.0,M10.5.0/3`.
///
/// This is what a TZif file's footer holds for the instants after its last transition (RFC 8536,
/// section 3.3), with version 3's extension: change times from -167 to 167 hours. Reading and
/// evaluation follow the GNU C library's, so conversions agree with `localtime_r`:
/// - offsets are `[+-]hh[:mm[:ss]]` west of UTC (hours at most 24), a missing daylight offset is
///   one hour ahead of standard time, a missing change time is 02:00;
/// - a daylight name without changes uses the United States' rules (`M3.2.0,M11.1.0`), which glibc
///   takes from the `posixrules` file (New York's on Debian) where that file exists;
/// - the changes are computed for the instant's year in UTC, and when the change into daylight
///   saving time comes after the change out of it (southern hemisphere), daylight saving time
///   runs over the new year.
/// Where glibc makes something up from a malformed daylight part, this keeps standard time.
package struct PosixTimeZoneRule: Sendable, Equatable {
    /// A day of a year on which time changes.
    enum Day: Sendable, Equatable {
        /// `Jn`: day 1...365 of the year, February 29 never counted (60 is always March 1).
        case julianSkippingLeapDay(Int)
        /// `n`: day 0...365 of the year, February 29 counted in leap years.
        case dayOfYear(Int)
        /// `Mm.w.d`: weekday `weekday` (0 Sunday) of week `week` (1...5, 5 the last) of month `month`.
        case weekdayOfMonth(month: Int, week: Int, weekday: Int)
    }

    /// One yearly change: a day and a local time of day (which may lie outside 0..<24 hours).
    struct Change: Sendable, Equatable {
        var day: Day
        var secondsAfterMidnight: Int
    }

    /// Daylight saving time: its offset, and when it starts (in standard time) and ends (in itself).
    struct DaylightSaving: Sendable, Equatable {
        var utcOffset: Int
        var start: Change
        var end: Change
    }

    /// Seconds east of UTC in standard time.
    let standardOffset: Int
    /// `nil` when the zone keeps standard time all year.
    let daylightSaving: DaylightSaving?

    /// Coordinated Universal Time: what a missing or unusable zone falls back to.
    static let utc = PosixTimeZoneRule(standardOffset: 0, daylightSaving: nil)

    init(standardOffset: Int, daylightSaving: DaylightSaving?) {
        self.standardOffset = standardOffset
        self.daylightSaving = daylightSaving
    }

    /// Reads a `TZ` string; `nil` when it does not start with a standard time name and offset.
    init?(_ text: String) {
        var scanner = TZStringScanner(Array(text.utf8))
        guard scanner.name(), let standardOffset = scanner.offset() else { return nil }
        self.standardOffset = standardOffset
        guard !scanner.isAtEnd, scanner.name() else {
            daylightSaving = nil
            return
        }
        let daylightOffset = scanner.offset() ?? standardOffset + 3600
        if scanner.isAtEnd || scanner.rest == [UInt8(ascii: ",")] {
            let twoAM = 2 * 3600
            daylightSaving = DaylightSaving(
                utcOffset: daylightOffset,
                start: Change(day: .weekdayOfMonth(month: 3, week: 2, weekday: 0), secondsAfterMidnight: twoAM),
                end: Change(day: .weekdayOfMonth(month: 11, week: 1, weekday: 0), secondsAfterMidnight: twoAM))
            return
        }
        guard let start = scanner.change(), let end = scanner.change(), scanner.isAtEnd else {
            daylightSaving = nil
            return
        }
        daylightSaving = DaylightSaving(utcOffset: daylightOffset, start: start, end: end)
    }

    /// Seconds east of UTC at `instant` (seconds since 1970-01-01 00:00 UTC).
    func utcOffset(at instant: Int) -> Int {
        guard let daylightSaving else { return standardOffset }
        let year = ProlepticGregorianCalendar.year(ofDay: instant.floorDivided(by: 86_400))
        let start = daylightSaving.start.instant(in: year, utcOffset: standardOffset)
        let end = daylightSaving.end.instant(in: year, utcOffset: daylightSaving.utcOffset)
        let isDaylightSaving = start > end ? (instant < end || instant >= start) : (instant >= start && instant < end)
        return isDaylightSaving ? daylightSaving.utcOffset : standardOffset
    }
}

extension PosixTimeZoneRule.Change {
    /// The instant of this change in `year`, for a clock `utcOffset` seconds east of UTC.
    func instant(in year: Int, utcOffset: Int) -> Int {
        let calendar = ProlepticGregorianCalendar.self
        let day: Int
        switch self.day {
        case .julianSkippingLeapDay(let number):
            day =
                calendar.day(year: year, month: 1, day: 1) + number - 1
                + (number >= 60 && calendar.isLeapYear(year) ? 1 : 0)
        case .dayOfYear(let number):
            day = calendar.day(year: year, month: 1, day: 1) + number
        case .weekdayOfMonth(let month, let week, let weekday):
            let first = calendar.day(year: year, month: month, day: 1)
            let length = calendar.numberOfDays(inMonth: month, of: year)
            var dayOfMonth = (weekday - calendar.weekday(ofDay: first) + 7) % 7
            for _ in 1..<week where dayOfMonth + 7 < length {
                dayOfMonth += 7
            }
            day = first + dayOfMonth
        }
        return day * 86_400 + secondsAfterMidnight - utcOffset
    }
}

/// Reads the parts of a `TZ` string from its bytes, front to back.
private struct TZStringScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position == bytes.count }
    var rest: ArraySlice<UInt8> { bytes[position...] }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skip(_ character: Character) -> Bool {
        guard next == character.asciiValue else { return false }
        position += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<` three or more letters, digits, `+`, `-` `>`.
    mutating func name() -> Bool {
        let start = position
        while let byte = next, byte.isASCIILetter { position += 1 }
        if position - start >= 3 { return true }
        position = start
        guard skip("<") else { return false }
        let quoted = position
        while let byte = next,
            byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
        {
            position += 1
        }
        guard position - quoted >= 3, skip(">") else {
            position = start
            return false
        }
        return true
    }

    /// `[+-]hh[:mm[:ss]]`, west of UTC, returned as seconds east of UTC; glibc caps the parts at 24:59:59.
    mutating func offset() -> Int? {
        let start = position
        let east = skip("-")
        if !east { _ = skip("+") }
        guard let (hours, minutes, seconds) = clockTime() else {
            position = start
            return nil
        }
        let magnitude = min(hours, 24) * 3600 + min(minutes, 59) * 60 + min(seconds, 59)
        return east ? magnitude : -magnitude
    }

    /// `,` then `Jn`, `n` or `Mm.w.d`, then optionally `/[+-]hh[:mm[:ss]]` (02:00 when absent).
    mutating func change() -> PosixTimeZoneRule.Change? {
        guard skip(",") else { return nil }
        let day: PosixTimeZoneRule.Day
        if skip("J") {
            guard let number = number(), (1...365).contains(number) else { return nil }
            day = .julianSkippingLeapDay(number)
        } else if skip("M") {
            guard let month = number(), skip("."), let week = number(), skip("."), let weekday = number(),
                (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
            else { return nil }
            day = .weekdayOfMonth(month: month, week: week, weekday: weekday)
        } else {
            guard let number = number(), (0...365).contains(number) else { return nil }
            day = .dayOfYear(number)
        }
        var secondsAfterMidnight = 2 * 3600
        if skip("/") {
            let negative = skip("-")
            if !negative { _ = skip("+") }
            guard let (hours, minutes, seconds) = clockTime() else { return nil }
            let magnitude = hours * 3600 + minutes * 60 + seconds
            secondsAfterMidnight = negative ? -magnitude : magnitude
        }
        return PosixTimeZoneRule.Change(day: day, secondsAfterMidnight: secondsAfterMidnight)
    }

    /// `hh[:mm[:ss]]`.
    private mutating func clockTime() -> (Int, Int, Int)? {
        guard let hours = number() else { return nil }
        var minutes = 0, seconds = 0
        if next == UInt8(ascii: ":"), position + 1 < bytes.count, bytes[position + 1].isASCIIDigit {
            position += 1
            minutes = number() ?? 0
            if next == UInt8(ascii: ":"), position + 1 < bytes.count, bytes[position + 1].isASCIIDigit {
                position += 1
                seconds = number() ?? 0
            }
        }
        return (hours, minutes, seconds)
    }

    /// Decimal digits; at most six, so the value stays small.
    private mutating func number() -> Int? {
        let start = position
        var value = 0
        while let byte = next, byte.isASCIIDigit, position - start < 6 {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            position += 1
        }
        return position > start ? value : nil
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }

    fileprivate var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
