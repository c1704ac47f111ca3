#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A compiled zone of the tz database: the TZif format of RFC 8536, versions 1 to 4.
///
/// Read once, then converted with arithmetic alone. A version 2+ file's 64-bit data block is used
/// (the 32-bit one ends in 2038), and its footer's `TZ` string governs the instants from the last
/// transition on, which in "slim" files is most of them. Lookups follow the GNU C library's, so
/// conversions agree with `localtime_r`: before the first transition the first standard-time type
/// applies, and leap-second corrections ("right/" zones) are taken off the local time.
package struct TZifFile: Sendable {
    /// One kind of local time the zone has used.
    struct LocalTimeType: Sendable, Equatable {
        /// Seconds east of UTC.
        var utcOffset: Int
        var isDaylightSaving: Bool
    }

    /// From `transition` on, the clock runs `correction` seconds behind the count of seconds.
    struct LeapSecond: Sendable, Equatable {
        var transition: Int
        var correction: Int
    }

    /// Instants (seconds since 1970, ascending) at which the local time type changes.
    let transitions: [Int]
    /// For each transition, the index in `types` of the local time from then on.
    let transitionTypes: [Int]
    let types: [LocalTimeType]
    let leapSeconds: [LeapSecond]
    /// The rule after the last transition; `nil` in version 1 files and when the footer is empty.
    let footer: PosixTimeZoneRule?

    /// What applies before the first transition: the first standard-time type, else the first type.
    private let initialType: LocalTimeType

    /// Parses a TZif file; `nil` when `contents` is not a well-formed one.
    init?(contents: Data) {
        var reader = TZifReader(bytes: Array(contents))
        guard let header = reader.header() else { return nil }
        let block: TZifReader.DataBlock
        if header.version == 0 {
            guard let version1 = reader.dataBlock(header, timeWidth: 4) else { return nil }
            block = version1
            footer = nil
        } else {
            guard reader.skip(header.dataBlockLength(timeWidth: 4)), let header64 = reader.header(),
                let version2 = reader.dataBlock(header64, timeWidth: 8), let text = reader.footer()
            else {
                return nil
            }
            block = version2
            footer = text.isEmpty ? nil : PosixTimeZoneRule(text)
        }
        transitions = block.transitions
        transitionTypes = block.transitionTypes
        types = block.types
        leapSeconds = block.leapSeconds
        initialType = block.types.first { !$0.isDaylightSaving } ?? block.types[0]
    }

    /// Seconds east of UTC at `instant` (seconds since 1970-01-01 00:00 UTC).
    func utcOffset(at instant: Int) -> Int {
        guard let first = transitions.first, instant >= first else { return initialType.utcOffset }
        if instant >= transitions[transitions.count - 1], let footer { return footer.utcOffset(at: instant) }
        // The last transition at or before `instant`.
        var low = 0, high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= instant { low = middle } else { high = middle - 1 }
        }
        return types[transitionTypes[low]].utcOffset
    }

    /// The local wall-clock time at `instant`, counted in seconds from 1970-01-01 00:00 local time.
    func localSeconds(at instant: Int) -> Int {
        let correction = leapSeconds.last { $0.transition <= instant }?.correction ?? 0
        return instant + utcOffset(at: instant) - correction
    }
}

/// Reads a TZif file's header, data blocks and footer from its bytes, front to back.
private struct TZifReader {
    /// The counts a header announces for the data block after it.
    struct Header {
        var version: UInt8
        var utIndicatorCount: Int
        var standardIndicatorCount: Int
        var leapCount: Int
        var transitionCount: Int
        var typeCount: Int
        var characterCount: Int

        func dataBlockLength(timeWidth: Int) -> Int {
            transitionCount * (timeWidth + 1) + typeCount * 6 + characterCount + leapCount * (timeWidth + 4)
                + standardIndicatorCount + utIndicatorCount
        }
    }

    struct DataBlock {
        var transitions: [Int]
        var transitionTypes: [Int]
        var types: [TZifFile.LocalTimeType]
        var leapSeconds: [TZifFile.LeapSecond]
    }

    let bytes: [UInt8]
    var position = 0

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count - position else { return false }
        position += count
        return true
    }

    /// A big-endian two's complement integer of `width` bytes.
    mutating func integer(width: Int) -> Int? {
        guard width <= bytes.count - position else { return nil }
        var value = 0
        for byte in bytes[position..<position + width] { value = value << 8 | Int(byte) }
        position += width
        let unused = Int.bitWidth - width * 8
        return unused > 0 ? (value << unused) >> unused : value
    }

    mutating func header() -> Header? {
        guard bytes.count - position >= 44, bytes[position..<position + 4].elementsEqual("TZif".utf8) else {
            return nil
        }
        let version = bytes[position + 4]
        position += 20
        var counts: [Int] = []
        for _ in 0..<6 {
            guard let count = integer(width: 4), count >= 0 else { return nil }
            counts.append(count)
        }
        return Header(
            version: version, utIndicatorCount: counts[0], standardIndicatorCount: counts[1],
            leapCount: counts[2], transitionCount: counts[3], typeCount: counts[4], characterCount: counts[5])
    }

    mutating func dataBlock(_ header: Header, timeWidth: Int) -> DataBlock? {
        guard header.typeCount > 0, header.characterCount > 0,
            [0, header.typeCount].contains(header.utIndicatorCount),
            [0, header.typeCount].contains(header.standardIndicatorCount),
            header.dataBlockLength(timeWidth: timeWidth) <= bytes.count - position
        else { return nil }
        var transitions: [Int] = []
        for _ in 0..<header.transitionCount {
            guard let time = integer(width: timeWidth), time > (transitions.last ?? .min) else { return nil }
            transitions.append(time)
        }
        var transitionTypes: [Int] = []
        for _ in 0..<header.transitionCount {
            guard let index = integer(width: 1), index < header.typeCount else { return nil }
            transitionTypes.append(index)
        }
        var types: [TZifFile.LocalTimeType] = []
        for _ in 0..<header.typeCount {
            guard let offset = integer(width: 4), offset != Int(Int32.min),
                let isDaylightSaving = integer(width: 1), isDaylightSaving <= 1,
                let designation = integer(width: 1), designation < header.characterCount
            else { return nil }
            types.append(TZifFile.LocalTimeType(utcOffset: offset, isDaylightSaving: isDaylightSaving == 1))
        }
        guard skip(header.characterCount) else { return nil }
        var leapSeconds: [TZifFile.LeapSecond] = []
        for _ in 0..<header.leapCount {
            guard let transition = integer(width: timeWidth), let correction = integer(width: 4) else { return nil }
            leapSeconds.append(TZifFile.LeapSecond(transition: transition, correction: correction))
        }
        guard skip(header.standardIndicatorCount + header.utIndicatorCount) else { return nil }
        return DataBlock(
            transitions: transitions, transitionTypes: transitionTypes, types: types,
            leapSeconds: leapSeconds)
    }

    /// The footer of a version 2+ file: a newline, a `TZ` string (possibly empty), a newline.
    mutating func footer() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\n"),
            let end = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\n"))
        else { return nil }
        defer { position = end + 1 }
        return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
    }
}
