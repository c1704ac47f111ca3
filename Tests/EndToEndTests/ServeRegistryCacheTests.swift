import Foundation
import Testing

/// `register-apns serve` keeps the registry between write batches: what another process
/// writes to the file meanwhile must be read, never overwritten by the kept copy.
@Suite("register-apns serve: the registry kept between batches")
struct ServeRegistryCacheTests {
    let directory: TemporaryDirectory
    let stateFile: String

    init() throws {
        directory = try TemporaryDirectory()
        stateFile = directory.file("state/devices.json")
    }

    var environment: [String: String] { ["HOME": directory.file("home"), "APNS_STATE_FILE": stateFile] }

    func register(_ server: RunningServe, _ id: String, _ number: Int) throws {
        let answer = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "\#(id)", "apns_token": "\#(hexToken(number, filler: "3e"))"}"#)
        #expect(answer.status == 200, "\(answer.status): \(answer.body)")
    }

    @Test("registrations by register-apns, removals by it and a rewrite of the file between batches all stay")
    func otherWritersBetweenBatches() throws {
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
        try register(server, "first", 1)
        try register(server, "second", 2)
        try BuiltTool.run("register-apns", ["add", "by-cli", hexToken(3, filler: "3e")], environment: environment)
            .expectSuccess()
        try BuiltTool.run("register-apns", ["remove", "second"], environment: environment).expectSuccess()
        try register(server, "third", 4)
        #expect(Set(try stateFileDevices(stateFile).keys) == ["first", "by-cli", "third"])

        // Another program rewrites the file (a version 1 file of its own, replaced by rename).
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
        var devices = try #require(object["devices"] as? [String: Any])
        devices["first"] = nil
        devices["by-hand"] = ["token": hexToken(5, filler: "3e")]
        object["devices"] = devices
        let replacement = directory.file("state/replacement.json")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: replacement))
        #expect(rename(replacement, stateFile) == 0)
        try register(server, "fourth", 6)
        #expect(Set(try stateFileDevices(stateFile).keys) == ["by-cli", "third", "by-hand", "fourth"])

        let listed = try server.request("GET", "/api/v1/devices")
        #expect(listed.status == 200)
        for id in ["by-cli", "third", "by-hand", "fourth"] { #expect(listed.body.contains("\"\(id)\""), "\(id)") }
        #expect(!listed.body.contains("\"first\""))
    }
}
