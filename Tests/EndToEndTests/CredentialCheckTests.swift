import Foundation
import Testing

/// `apns-jwt check` catches wrong credentials: offline, a key id that is not the one the key file
/// is named for; online (`--online`), what the server says about a probe that delivers nothing,
/// and whether it can be reached at all.
@Suite("apns-jwt check: the key id against the file, and --online")
struct CredentialCheckTests {
    @Test("a key id other than the one in AuthKey_<id>.p8 is a warning naming both")
    func keyIDAgainstFileName() throws {
        let setup = try ProviderSetup()
        let named = setup.directory.file("AuthKey_\(ProviderSetup.keyID).p8")
        try FileManager.default.copyItem(atPath: setup.key.pkcs8Path, toPath: named)
        var environment = setup.environment
        environment["APNS_KEY_PATH"] = named
        environment["APNS_KEY_ID"] = "ZZZZZ99999"
        let checked = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(checked.status == 0, "a warning only: \(checked.stdout)")
        #expect(
            checked.stdout.contains("warn  key id")
                && checked.stdout.contains("the key file is named for key id \(ProviderSetup.keyID)"),
            "\(checked.stdout)")
    }

    @Test("--online: accepted by the emulator; a wrong key id, a missing CA and a closed port each fail, exit 78")
    func online() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let environment = emulator.asAPNs(for: setup.environment)

        let good = try BuiltTool.run("apns-jwt", ["check", "--online"], environment: environment)
        #expect(good.status == 0, "\(good.stdout)")
        #expect(good.stdout.contains("ok    apns (online)") && good.stdout.contains("were accepted"), "\(good.stdout)")
        let record = try #require(emulator.waitForRecords(1).first)
        #expect(record["push_type"] as? String == "background", "the probe alerts nobody: \(record)")

        var wrongKey = environment
        wrongKey["APNS_KEY_ID"] = "ZZZZZ99999"
        let refused = try BuiltTool.run("apns-jwt", ["check", "--online"], environment: wrongKey)
        #expect(refused.status == 78)
        #expect(refused.stdout.contains("403 InvalidProviderToken"), "\(refused.stdout)")

        var noCA = environment
        noCA["APNS_CA_FILE"] = nil
        let untrusted = try BuiltTool.run("apns-jwt", ["check", "--online"], environment: noCA)
        #expect(untrusted.status == 78 && untrusted.stdout.contains("APNS_CA_FILE"), "\(untrusted.stdout)")

        var closed = environment
        closed["APNS_PRODUCTION_URL"] = "https://127.0.0.1:1"
        let unreachable = try BuiltTool.run("apns-jwt", ["check", "--online"], environment: closed)
        #expect(unreachable.status == 78 && unreachable.stdout.contains("cannot reach"), "\(unreachable.stdout)")
        // Offline, all three say all good: nothing but the probe could tell.
        for case let offline in [wrongKey, noCA, closed] {
            #expect(try BuiltTool.run("apns-jwt", ["check"], environment: offline).status == 0)
        }
    }
}
