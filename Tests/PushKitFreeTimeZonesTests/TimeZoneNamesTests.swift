import Foundation
import Testing
import PushKitFreeCore
@testable import PushKitFreeTimeZones

/// The zone names the tools accept, the names the HTTP contract lists, and the system's tz database.
struct TimeZoneNamesTests {
    /// docs/openapi.yaml, from this file's place in the repository.
    static let openAPIPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path

    /// The `enum` of the document's `TimeZone` schema: the block list after `    TimeZone:`.
    static func documentedNames() throws -> [String] {
        let text = try String(contentsOfFile: openAPIPath, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let schema = try #require(lines.firstIndex(of: "    TimeZone:"), "no TimeZone schema in docs/openapi.yaml")
        let schemaEnd = lines[(schema + 1)...].firstIndex { !$0.hasPrefix("      ") } ?? lines.endIndex
        let enumLine = try #require(
            lines[schema..<schemaEnd].firstIndex(of: "      enum:"), "no enum in the TimeZone schema")
        return lines[(enumLine + 1)..<schemaEnd].prefix { $0.hasPrefix("        - ") }
            .map { String($0.dropFirst("        - ".count)) }
    }

    @Test("the contract lists exactly the names the tools accept, each once")
    func documentMatchesCode() throws {
        let documented = try Self.documentedNames()
        #expect(documented.count == TimeZoneNames.all.count)
        #expect(Set(documented) == TimeZoneNames.all)
        #expect(documented.count > 500, "a tz database release has about 600 names")
        #expect(
            try String(contentsOfFile: Self.openAPIPath, encoding: .utf8)
                .contains("tz database release \(TimeZoneNames.release))"))
    }

    @Test("every listed name is a zone of this machine's tz database, so the server accepts what the contract lists")
    func listedNamesExist() {
        let missing = TimeZoneNames.all.filter { !SystemTimeZone.exists($0) }.sorted()
        #expect(missing.isEmpty, "the tz database in /usr/share/zoneinfo lacks \(missing)")
    }

    @Test("files of the database's directory that are not zones are refused, as is any unlisted name")
    func unlistedNamesRefused() throws {
        for name in ["localtime", "posixrules", "posix/Europe/Berlin", "right/UTC", "zone.tab", "Europe"] {
            #expect(!SystemTimeZone.exists(name), "\(name)")
            #expect(throws: ConfigurationError.self) { try SystemTimeZone(identifier: name) }
        }
        // The files are there: only the list refuses them.
        #expect(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/posix/Europe/Berlin"))
        #expect(try SystemTimeZone(identifier: "Europe/Berlin").name == "Europe/Berlin")
        #expect(SystemTimeZone.exists("US/Eastern"), "links are names too")
    }
}
