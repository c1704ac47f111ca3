import PushKitFreeTimeZones

/// A calendar date on a wall clock somewhere (`2026-11-24`), without a time or a zone: the day a
/// device's briefing was last sent, in the device's own zone.
package struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01 in the proleptic Gregorian calendar.
    package let dayNumber: Int

    /// The day `dayNumber` days after 1970-01-01 (before it, when negative).
    package init(dayNumber: Int) {
        self.dayNumber = dayNumber
    }

    /// The date `year`-`month`-`day`; `nil` when there is no such day.
    package init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month),
            (1...ProlepticGregorianCalendar.numberOfDays(inMonth: month, of: year)).contains(day)
        else { return nil }
        dayNumber = ProlepticGregorianCalendar.day(year: year, month: month, day: day)
    }

    /// Reads `YYYY-MM-DD`; `nil` for anything else or a day that does not exist.
    package init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Year, month (1...12) and day of month.
    package var components: (year: Int, month: Int, day: Int) {
        let year = ProlepticGregorianCalendar.year(ofDay: dayNumber)
        var month = 1
        var first = ProlepticGregorianCalendar.day(year: year, month: 1, day: 1)
        while month < 12 {
            let length = ProlepticGregorianCalendar.numberOfDays(inMonth: month, of: year)
            guard dayNumber >= first + length else { break }
            first += length
            month += 1
        }
        return (year, month, dayNumber - first + 1)
    }

    /// `YYYY-MM-DD`.
    package var description: String {
        let (year, month, day) = components
        func twoDigits(_ value: Int) -> String { (value < 10 ? "0" : "") + String(value) }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-" + twoDigits(month) + "-"
            + twoDigits(day)
    }

    /// Whether `lhs` is the earlier day.
    package static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.dayNumber < rhs.dayNumber }
}
