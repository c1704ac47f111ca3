import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry
import PushKitFreeTimeZones

/// A UTC instant.
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
    let seconds =
        ProlepticGregorianCalendar.day(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
    return Date(timeIntervalSince1970: TimeInterval(seconds))
}

private func zone(_ name: String) throws -> SystemTimeZone {
    try #require(SystemTimeZone.named(name), "\(name) in the tz database")
}

@Suite("Local dates")
struct LocalDateTests {
    @Test("reads and writes YYYY-MM-DD, refusing days that do not exist")
    func roundTrip() throws {
        for text in ["1970-01-01", "2024-02-29", "2026-11-24", "2026-12-31", "2100-03-01"] {
            let date = try #require(LocalDate(text))
            #expect(date.description == text)
        }
        for text in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-01T", ""] {
            #expect(LocalDate(text) == nil, "\(text)")
        }
        #expect(LocalDate("1970-01-02")?.dayNumber == 1)
        #expect(try #require(LocalDate("2026-11-23")) < #require(LocalDate("2026-11-24")))
    }

    @Test("a zone's local date changes at its own midnight")
    func localDateInZones() throws {
        let instant = utc(2026, 11, 24, 3, 30) // 22:30 the day before in New York, 12:30 in Tokyo
        #expect(try zone("America/New_York").localDate(at: instant).description == "2026-11-23")
        #expect(try zone("Asia/Tokyo").localDate(at: instant).description == "2026-11-24")
        #expect(FixedOffsetTimeZone(offsetMinutes: -240).localDate(at: instant).description == "2026-11-23")
    }
}

@Suite("Briefing settings")
struct BriefingSettingsTests {
    @Test("a briefing_config message's members are read and checked")
    func parsesMessage() throws {
        let message: [String: JSONValue] = [
            "type": "briefing_config", "enabled": true, "time": "07:00", "timezone": "America/New_York",
            "sources": ["weather", "calendar"],
        ]
        let settings = try BriefingSettings(members: message)
        #expect(
            settings
                == BriefingSettings(minuteOfDay: 420, timeZone: "America/New_York", sources: ["weather", "calendar"]))
        #expect(settings.time == "07:00")

        let refusals: [([String: JSONValue], String)] = [
            (["timezone": "Europe/Berlin"], "\"time\" is missing"),
            (["time": "7 am", "timezone": "Europe/Berlin"], "\"time\" must be a local time of day"),
            (["time": "24:00", "timezone": "Europe/Berlin"], "not \"24:00\""),
            (["time": "07:00"], "\"timezone\" is missing"),
            (["time": "07:00", "timezone": "Mars/Olympus_Mons"], "\"Mars/Olympus_Mons\" is not an IANA time zone"),
            (["time": "07:00", "timezone": "../../etc/passwd"], "is not an IANA time zone"),
            (["time": "07:00", "timezone": 5], "\"timezone\" must be an IANA time zone name"),
            (["time": "07:00", "timezone": "UTC", "enabled": "yes"], "\"enabled\" must be true or false"),
            (["time": "07:00", "timezone": "UTC", "sources": "news"], "\"sources\" must be an array of strings"),
            (["time": "07:00", "timezone": "UTC", "sources": [1]], "\"sources\" must be an array of strings"),
        ]
        for (members, expected) in refusals {
            let error = #expect(throws: BriefingSettingsError.self) { try BriefingSettings(members: members) }
            #expect(error?.message.contains(expected) == true, "\(members): \(error?.message ?? "")")
        }
    }

    @Test("due at or after the local time, once per local day, in three zones over a simulated day")
    func dueOncePerLocalDay() throws {
        let zones = ["America/New_York", "Europe/Berlin", "Asia/Tokyo"]
        // Set up the day before, in every zone.
        var settings = zones.map {
            BriefingSettings(minuteOfDay: 420, timeZone: $0, lastSentOn: LocalDate("2026-11-22"))
        }
        var sentAt: [[Date]] = Array(repeating: [], count: zones.count)
        // Every minute for two UTC days, as cron would run it.
        var instant = utc(2026, 11, 23, 0)
        while instant < utc(2026, 11, 25, 0) {
            for index in settings.indices {
                let localZone = try zone(zones[index])
                if settings[index].isDue(at: instant, in: localZone) {
                    sentAt[index].append(instant)
                    settings[index].lastSentOn = localZone.localDate(at: instant)
                }
            }
            instant += 60
        }
        // 07:00 local: New York is UTC-5 in November, Berlin UTC+1, Tokyo UTC+9.
        #expect(sentAt[0] == [utc(2026, 11, 23, 12), utc(2026, 11, 24, 12)])
        #expect(sentAt[1] == [utc(2026, 11, 23, 6), utc(2026, 11, 24, 6)])
        #expect(sentAt[2] == [utc(2026, 11, 23, 0), utc(2026, 11, 23, 22), utc(2026, 11, 24, 22)])
    }

    @Test("a late or skipped run still sends the day's briefing; a disabled one never")
    func lateRun() throws {
        let newYork = try zone("America/New_York")
        var settings = BriefingSettings(minuteOfDay: 420, timeZone: "America/New_York")
        #expect(!settings.isDue(at: utc(2026, 11, 24, 11, 59), in: newYork)) // 06:59
        #expect(settings.isDue(at: utc(2026, 11, 24, 16, 0), in: newYork)) // 11:00, four hours late
        settings.lastSentOn = newYork.localDate(at: utc(2026, 11, 24, 16, 0))
        #expect(!settings.isDue(at: utc(2026, 11, 25, 4, 59), in: newYork)) // 23:59 the same day
        #expect(!settings.isDue(at: utc(2026, 11, 25, 5, 0), in: newYork)) // 00:00 the next day
        #expect(settings.isDue(at: utc(2026, 11, 25, 12, 0), in: newYork))
        settings.enabled = false
        #expect(!settings.isDue(at: utc(2026, 11, 25, 12, 0), in: newYork))
    }

    @Test("across daylight saving changes: a skipped time is sent when the clock passes it, a repeated one once")
    func daylightSaving() throws {
        let newYork = try zone("America/New_York")
        // 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00 UTC). A 02:30 briefing is due from 03:00 EDT.
        var spring = BriefingSettings(minuteOfDay: 150, timeZone: "America/New_York")
        var springSent: [Date] = []
        var instant = utc(2026, 3, 8, 5)
        while instant < utc(2026, 3, 8, 12) {
            if spring.isDue(at: instant, in: newYork) {
                springSent.append(instant)
                spring.lastSentOn = newYork.localDate(at: instant)
            }
            instant += 60
        }
        #expect(springSent == [utc(2026, 3, 8, 7)])

        // 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00 UTC). 01:30 happens at 05:30 and 06:30 UTC.
        var fall = BriefingSettings(minuteOfDay: 90, timeZone: "America/New_York")
        var fallSent: [Date] = []
        instant = utc(2026, 11, 1, 4)
        while instant < utc(2026, 11, 1, 10) {
            if fall.isDue(at: instant, in: newYork) {
                fallSent.append(instant)
                fall.lastSentOn = newYork.localDate(at: instant)
            }
            instant += 60
        }
        #expect(fallSent == [utc(2026, 11, 1, 5, 30)])
    }
}

@Suite("Briefing settings in the registry")
struct RegistryBriefingTests {
    @Test("time zone and briefing survive the state file, and setting them again keeps the day last sent")
    func stateFileRoundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("briefing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = StateFileRegistry(
            path: directory.appendingPathComponent("devices.json").path, clock: ManualClock())
        var phone = registration("phone", 1)
        phone.timeZone = "Asia/Tokyo"
        try registry.register([phone, registration("tablet", 2)])

        #expect(try registry.setBriefing(BriefingSettings(minuteOfDay: 420, timeZone: "Asia/Tokyo"), deviceID: "phone"))
        #expect(try !registry.setBriefing(BriefingSettings(minuteOfDay: 420, timeZone: "UTC"), deviceID: "nobody"))
        let day = try #require(LocalDate("2026-11-24"))
        #expect(try registry.recordBriefingSent(["phone": day, "tablet": day, "gone": day]) == 1)
        // The app moves its briefing to 08:00: the day it was last sent stays, so no second one today.
        try registry.setBriefing(
            BriefingSettings(minuteOfDay: 480, timeZone: "Asia/Tokyo", sources: ["news"]), deviceID: "phone")

        let devices = try registry.load()
        let record = try #require(devices["phone"])
        #expect(record.timeZone == "Asia/Tokyo")
        #expect(
            record.briefing
                == BriefingSettings(minuteOfDay: 480, timeZone: "Asia/Tokyo", sources: ["news"], lastSentOn: day))
        #expect(devices["tablet"]?.briefing == nil && devices["tablet"]?.timeZone == nil)
        let text = try String(contentsOf: directory.appendingPathComponent("devices.json"), encoding: .utf8)
        #expect(
            text.contains(
                #""timezone":"Asia/Tokyo","briefing":{"enabled":true,"last_sent_on":"2026-11-24","sources":["news"],"time":"08:00","timezone":"Asia/Tokyo"}"#
            ))
        // A registration without a time zone keeps the one known.
        try registry.register([registration("phone", 1)])
        #expect(try registry.load()["phone"]?.timeZone == "Asia/Tokyo")
    }

    @Test("first settings made after the day's time count today as done; made before it, today's is due")
    func firstSettings() throws {
        var devices = RegisteredDevices()
        _ = try devices.register(registration("phone", 1), at: Date(timeIntervalSince1970: 0))
        let berlin = "Europe/Berlin"
        // 2026-11-24 10:00 UTC is 11:00 in Berlin: a 07:00 briefing starts tomorrow.
        let late = Date(timeIntervalSince1970: TimeInterval(LocalDate("2026-11-24")!.dayNumber * 86_400 + 36_000))
        let phoneFound = devices.setBriefing(
            BriefingSettings(minuteOfDay: 420, timeZone: berlin), deviceID: "phone", at: late)
        #expect(phoneFound)
        #expect(devices["phone"]?.briefing?.lastSentOn == LocalDate("2026-11-24"))
        // A 12:00 briefing set at 11:00 is still due today.
        _ = try devices.register(registration("tablet", 2), at: Date(timeIntervalSince1970: 0))
        let tabletFound = devices.setBriefing(
            BriefingSettings(minuteOfDay: 720, timeZone: berlin), deviceID: "tablet", at: late)
        #expect(tabletFound)
        #expect(devices["tablet"]?.briefing?.lastSentOn == nil)
    }

    @Test("a registration body's timezone is checked against the tz database")
    func requestBodyTimeZone() throws {
        let hex = String(repeating: "ab", count: 32)
        let good = try DeviceRegistration.registration(
            fromBody: ["device_token": "phone", "apns_token": .string(hex), "timezone": "Europe/Berlin"])
        #expect(good.timeZone == "Europe/Berlin")
        #expect(
            throws: RegistrationBodyError.invalidValue(
                "\"timezone\" \"Atlantis/Capital\" is not an IANA time zone (like \"Europe/Berlin\")"
            )
        ) {
            try DeviceRegistration.registration(
                fromBody: ["device_token": "phone", "apns_token": .string(hex), "timezone": "Atlantis/Capital"])
        }
        #expect(throws: RegistrationBodyError.self) {
            try DeviceRegistration.registration(
                fromBody: ["device_token": "phone", "apns_token": .string(hex), "timezone": 3])
        }
    }
}
