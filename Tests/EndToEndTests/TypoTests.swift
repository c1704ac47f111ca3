import Foundation
import Testing

/// A mistyped subcommand or option is a usage error that names what was meant, never data: with a
/// default subcommand (`register-apns DEVICE_ID TOKEN`, `apns-jwt`), a word near a subcommand
/// registers nothing and changes nothing on disk.
@Suite("typos: did you mean, and nothing registered")
struct TypoTests {
    static let token = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"

    @Test(
        "a word near a subcommand is refused with the one it meant, and no device is registered",
        arguments: [
            (["remvoe", token], "remove"), (["rmove", "p1"], "remove"), (["lst"], "list"), (["lsit"], "list"),
            (["improt", "devices.json"], "import"), (["db", "migrat"], "migrate"),
        ])
    func registerAPNsSubcommand(arguments: [String], meant: String) throws {
        let directory = try TemporaryDirectory()
        let environment = ["HOME": directory.file("home"), "APNS_STATE_FILE": directory.file("devices.json")]
        let result = try BuiltTool.run("register-apns", arguments, environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("did you mean '\(meant)'?"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("devices.json")), "nothing written")
    }

    @Test("named explicitly, add takes the same word as a device id")
    func explicitAdd() throws {
        let directory = try TemporaryDirectory()
        let environment = ["HOME": directory.file("home"), "APNS_STATE_FILE": directory.file("devices.json")]
        let added = try BuiltTool.run("register-apns", ["add", "remvoe", Self.token], environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try BuiltTool.run("register-apns", ["list"], environment: environment)
        #expect(listed.stdout.contains("remvoe"))
        // A device id far from every subcommand is still the default subcommand's.
        let phone = try BuiltTool.run("register-apns", ["phone", Self.token], environment: environment)
        #expect(phone.status == 0 && phone.stdout.contains("phone"), "\(phone.stderr)")
    }

    @Test("apns-jwt: a mistyped subcommand names the one meant")
    func apnsJWTSubcommand() throws {
        let directory = try TemporaryDirectory()
        let result = try BuiltTool.run("apns-jwt", ["chek"], environment: ["HOME": directory.file("home")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean 'check'?"), "\(result.stderr)")
        #expect(!result.stderr.contains("as an argument"), "token takes no arguments: no hint to pass one")
    }

    @Test(
        "send-push: a mistyped option names the option meant; nothing is sent",
        arguments: [
            ("--titel", "--title"), ("--sandbx", "--sandbox"), ("--dryrun", "--dry-run"), ("--titel=x", "--title"),
        ])
    func sendPushOption(typo: String, meant: String) throws {
        let setup = try ProviderSetup()
        let result = try BuiltTool.run("send-push", [typo, "x", "hello"], environment: setup.environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean '\(meant)'?"), "\(result.stderr)")
    }
}
