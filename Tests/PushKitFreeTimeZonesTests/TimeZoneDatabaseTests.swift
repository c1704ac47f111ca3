import Foundation
import Synchronization
import Testing
import PushKitFreeCore
@testable import PushKitFreeTimeZones

/// Seconds since 1970 of a UTC date and time.
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Int {
    ProlepticGregorianCalendar.day(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
}

/// "HH:MM" of a minute of the day.
private func clock(_ minuteOfDay: Int) -> String {
    String(format: "%02d:%02d", minuteOfDay / 60, minuteOfDay % 60)
}

private func minuteOfDay(_ rules: ZoneRules, _ instant: Int) -> Int {
    rules.localSeconds(at: instant).floorModulo(86_400) / 60
}

private let database = TimeZoneDatabase(directory: "/usr/share/zoneinfo")

private func zone(_ name: String) throws -> ZoneRules {
    try #require(database.zone(named: name).map(ZoneRules.file), "\(name) in /usr/share/zoneinfo")
}

/// The C library's answers, computed in a child process (`date`, which calls `localtime_r`) so that
/// this process's environment is never changed.
private enum GlibcLocalTime {
    /// "HH:MM" at each instant with `TZ` set to `tz` (`nil`: unset) and `TZDIR` to `tzdir` (`nil`: unset).
    static func clocks(at instants: [Int], tz: String?, tzdir: String? = nil) throws -> [String] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("instants-\(UUID().uuidString)")
        try instants.map { "@\($0)\n" }.joined().write(to: input, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: input) }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = tz
        environment["TZDIR"] = tzdir
        environment["LC_ALL"] = "C"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["-f", input.path, "+%H:%M"]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "date -f for TZ=\(tz ?? "(unset)")")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Instants spread over 1900...2105 (before the first transition, through the transitions, and past
/// a fat file's last one in 2037), plus every minute for two hours around each change of offset in
/// 2025...2027 and 2099...2100.
private func sampleInstants(_ rules: ZoneRules) -> [Int] {
    var instants = Array(stride(from: utc(1900, 1, 1), to: utc(2105, 1, 1), by: 5 * 86_400 + 4_637))
    for (from, to) in [(utc(2025, 1, 1), utc(2028, 1, 1)), (utc(2099, 1, 1), utc(2101, 1, 1))] {
        var previous = rules.localSeconds(at: from) - from
        for hour in stride(from: from, to: to, by: 3600) {
            let offset = rules.localSeconds(at: hour) - hour
            if offset != previous { instants += stride(from: hour - 3 * 3600, to: hour + 2 * 3600, by: 60) }
            previous = offset
        }
    }
    return instants
}

private func expectSameAsGlibc(_ rules: ZoneRules, _ instants: [Int], tz: String?, tzdir: String? = nil) throws {
    let expected = try GlibcLocalTime.clocks(at: instants, tz: tz, tzdir: tzdir)
    try #require(expected.count == instants.count)
    var mismatches: [String] = []
    for (instant, glibc) in zip(instants, expected) where clock(minuteOfDay(rules, instant)) != glibc {
        mismatches.append("@\(instant): \(clock(minuteOfDay(rules, instant))), glibc \(glibc)")
    }
    #expect(
        mismatches.isEmpty,
        "TZ=\(tz ?? "(unset)"): \(mismatches.count) of \(instants.count) differ: \(mismatches.prefix(5))")
}

@Suite("time zones from the tz database")
struct TimeZoneDatabaseTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
        "Pacific/Chatham", "America/Sao_Paulo", "UTC", "America/Nuuk", "right/Europe/Berlin",
    ]

    @Test("known local times: DST changes, half-hour and 45-minute offsets, DST abolished, far future")
    func knownValues() throws {
        let cases: [(String, Int, String)] = [
            ("Europe/Berlin", utc(2026, 3, 29, 0, 59), "01:59"), // spring forward: 02:00 CET is 03:00 CEST
            ("Europe/Berlin", utc(2026, 3, 29, 1, 0), "03:00"),
            ("Europe/Berlin", utc(2026, 10, 25, 0, 59), "02:59"), // fall back: 03:00 CEST is 02:00 CET
            ("Europe/Berlin", utc(2026, 10, 25, 1, 0), "02:00"),
            ("Europe/Berlin", utc(2100, 7, 1, 12, 0), "14:00"), // only the footer's rule knows 2100
            ("America/New_York", utc(2026, 3, 8, 6, 59), "01:59"),
            ("America/New_York", utc(2026, 3, 8, 7, 0), "03:00"),
            ("America/New_York", utc(2100, 1, 1, 12, 0), "07:00"),
            ("Australia/Lord_Howe", utc(2026, 10, 3, 15, 29), "01:59"), // 02:00 +1030 is 02:30 +11
            ("Australia/Lord_Howe", utc(2026, 10, 3, 15, 30), "02:30"),
            ("Asia/Kolkata", utc(2026, 6, 1, 0, 0), "05:30"),
            ("Pacific/Chatham", utc(2026, 1, 1, 0, 0), "13:45"),
            ("Pacific/Chatham", utc(2026, 7, 1, 0, 0), "12:45"),
            ("America/Sao_Paulo", utc(2018, 12, 1, 12, 0), "10:00"), // the last summer time
            ("America/Sao_Paulo", utc(2026, 12, 1, 12, 0), "09:00"), // abolished in 2019
            ("UTC", utc(2026, 6, 1, 23, 59), "23:59"),
        ]
        for (name, instant, expected) in cases {
            #expect(clock(minuteOfDay(try zone(name), instant)) == expected, "\(name) @\(instant)")
        }
    }

    @Test(
        "the same minute of the day as glibc's localtime_r, over two centuries and around each change",
        arguments: zones)
    func agreesWithGlibc(name: String) throws {
        let rules = try zone(name)
        try expectSameAsGlibc(rules, sampleInstants(rules), tz: ":" + name)
    }

    @Test("Berlin's spring-forward and fall-back days, minute by minute, as glibc has them")
    func changeDaysMinuteByMinute() throws {
        let rules = try zone("Europe/Berlin")
        let spring = Array(stride(from: utc(2026, 3, 28, 22), to: utc(2026, 3, 29, 22), by: 60))
        let autumn = Array(stride(from: utc(2026, 10, 24, 22), to: utc(2026, 10, 25, 23), by: 60))
        try expectSameAsGlibc(rules, spring + autumn, tz: ":Europe/Berlin")
        let springClocks = spring.map { clock(minuteOfDay(rules, $0)) }
        #expect(!springClocks.contains("02:30"), "the hour from 02:00 to 03:00 does not exist")
        #expect(
            autumn.map { clock(minuteOfDay(rules, $0)) }.filter { $0 == "02:30" }.count == 2,
            "the hour from 02:00 to 03:00 happens twice")
    }

    @Test(
        "POSIX TZ strings alone, version 3's extended hours included, as glibc reads them",
        arguments: [
            "CET-1CEST,M3.5.0,M10.5.0/3",
            "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
            "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45",
            "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",
            "IST-2IDT,M3.4.4/26,M10.5.0",
            "EST5EDT,0/0,J365/25",
            "<+0330>-3:30<+0430>,J79/24,J263/24",
            "XXX3EDT4,J60/1:30,J300/2",
            "AAA+4:15:30BBB,59/23:59:59,300",
            "<-03>3",
            "IST-5:30",
        ])
    func posixStrings(tz: String) throws {
        let rule = try #require(PosixTimeZoneRule(tz))
        let rules = ZoneRules.posix(rule)
        var instants = Array(stride(from: utc(1971, 1, 1), to: utc(2110, 1, 1), by: 11 * 86_400 + 3_607))
        for year in [2024, 2028, 2100] { // leap years: J60 and n=59 differ there
            instants += stride(from: utc(year, 1, 1), to: utc(year + 1, 1, 1), by: 30 * 60)
        }
        try expectSameAsGlibc(rules, instants, tz: tz)
    }

    @Test(
        "TZ as the C library reads it: unset, empty, with or without a colon, a path, a rule, nonsense",
        arguments: [
            nil, "", ":", "Europe/Berlin", ":Australia/Lord_Howe", "/usr/share/zoneinfo/Asia/Kolkata",
            "CET-1CEST,M3.5.0,M10.5.0/3", "Nowhere/Nothing", "Europe", "<+0545>-5:45",
        ] as [String?])
    func systemZone(tz: String?) throws {
        let rules = database.rules(forTZ: tz)
        let instants = Array(stride(from: utc(2020, 1, 1), to: utc(2041, 1, 1), by: 86_400 + 3_541))
        try expectSameAsGlibc(rules, instants, tz: tz, tzdir: database.directory)
    }

    @Test("a slim file, whose footer does most of the work, converts like glibc reads it")
    func slimFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tzdir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("test.zi")
        try """
        Rule\tTest\t1990\tmax\t-\tMar\tlastSun\t1:00u\t1:00\tS
        Rule\tTest\t1990\tmax\t-\tOct\tlastSun\t1:00u\t0\t-
        Zone\tTest/Slim\t0:30\t-\tLMT\t1980
        \t\t\t1:00\tTest\tCE%sT\n
        """.write(to: source, atomically: true, encoding: .utf8)
        let zic = Process()
        zic.executableURL = URL(fileURLWithPath: "/usr/sbin/zic")
        zic.arguments = ["-b", "slim", "-d", directory.path, source.path]
        try zic.run()
        zic.waitUntilExit()
        try #require(zic.terminationStatus == 0)

        let file = try #require(TimeZoneDatabase(directory: directory.path).zone(named: "Test/Slim"))
        #expect(file.footer == PosixTimeZoneRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(file.transitions.count < 5, "slim: the footer covers 1990 on")
        let rules = ZoneRules.file(file)
        #expect(clock(minuteOfDay(rules, utc(2026, 7, 1, 12))) == "14:00")
        try expectSameAsGlibc(rules, sampleInstants(rules), tz: "Test/Slim", tzdir: directory.path)
    }

    @Test("a version 1 file (32-bit data, no footer) converts like the full file until 2037")
    func versionOneFile() throws {
        var bytes = Array(try #require(try PosixFile.readIfPresent("/usr/share/zoneinfo/Europe/Berlin")))
        let counts = (0..<6).map { index in
            bytes[20 + index * 4..<24 + index * 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let (isUT, isStandard, leaps, times, types, characters) = (
            counts[0], counts[1], counts[2], counts[3],
            counts[4], counts[5]
        )
        bytes = Array(bytes[..<(44 + times * 5 + types * 6 + characters + leaps * 8 + isStandard + isUT)])
        bytes[4] = 0
        let versionOne = try #require(TZifFile(contents: Data(bytes)))
        #expect(versionOne.footer == nil)
        let full = try zone("Europe/Berlin")
        for instant in stride(from: utc(1901, 12, 14), to: utc(2037, 12, 31), by: 86_400 * 3 + 1_234) {
            #expect(ZoneRules.file(versionOne).localSeconds(at: instant) == full.localSeconds(at: instant))
        }
    }

    @Test("a zone that is missing, outside the database, or not a well-formed TZif file is refused")
    func refusedZones() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tzdir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("Bad"),
            withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let berlin = try #require(try PosixFile.readIfPresent("/usr/share/zoneinfo/Europe/Berlin"))
        try berlin.prefix(300).write(to: directory.appendingPathComponent("Bad/Truncated"))
        try Data("TZif2 but nothing else".utf8).write(to: directory.appendingPathComponent("Bad/Header"))
        try Data("not a zone".utf8).write(to: directory.appendingPathComponent("Bad/Text"))
        let local = TimeZoneDatabase(directory: directory.path)
        for name in ["Bad/Truncated", "Bad/Header", "Bad/Text", "Bad", "Bad/Missing", "../Bad/Text", ""] {
            let error = #expect(throws: ConfigurationError.self) {
                try SystemTimeZone(identifier: name, database: local)
            }
            #expect(error?.description.contains("is not an IANA time zone") == true)
            #expect(error?.exitStatus == .configuration)
        }
        #expect(TZifFile(contents: berlin) != nil)
        // Unusable as TZ, the C library falls back to UTC.
        #expect(clock(minuteOfDay(local.rules(forTZ: "Bad/Truncated"), utc(2026, 7, 1, 12))) == "12:00")
        // A path that is no regular file (an endless device, a directory) or is over the limit is
        // not read: UTC, at once.
        let large = directory.appendingPathComponent("Bad/Large")
        try (berlin + Data(count: TimeZoneDatabase.zoneFileLimit)).write(to: large)
        for tz in ["/dev/zero", ":/dev/zero", directory.path + "/Bad", large.path] {
            #expect(clock(minuteOfDay(local.rules(forTZ: tz), utc(2026, 7, 1, 12))) == "12:00", "TZ=\(tz)")
        }
        #expect(
            clock(minuteOfDay(local.rules(forTZ: "/usr/share/zoneinfo/Europe/Berlin"), utc(2026, 7, 1, 12))) == "14:00")
    }

    @Test("many tasks and threads converting in several zones at once get the single-threaded answers")
    func concurrentConversions() async throws {
        // The raw database: `right/…` (leap seconds counted) is a file the tools refuse as a zone name.
        let zones =
            try Self.zones.map { try SystemTimeZone(identifier: $0, database: database) }
            + [try SystemTimeZone(identifier: nil)]
        let dates = stride(from: utc(2020, 1, 1), to: utc(2045, 1, 1), by: 86_400 * 9 + 1_777)
            .map { Date(timeIntervalSince1970: Double($0)) }
        let expected = zones.map { zone in dates.map { zone.minuteOfDay(at: $0) } }

        let fromTasks = await withTaskGroup(of: (Int, [Int]).self) { group in
            for round in 0..<64 {
                group.addTask {
                    let index = round % zones.count
                    return (index, dates.map { zones[index].minuteOfDay(at: $0) })
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(fromTasks.count == 64)
        #expect(fromTasks.allSatisfy { expected[$0.0] == $0.1 })

        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 32) { round in
            let index = round % zones.count
            if dates.map({ zones[index].minuteOfDay(at: $0) }) != expected[index] {
                mismatches.withLock { $0 += 1 }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }
}
