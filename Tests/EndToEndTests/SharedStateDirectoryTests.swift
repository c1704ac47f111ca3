import Foundation
import Testing

/// Another user on the same machine: a state directory others can write to is refused, as ssh
/// refuses a home directory others can write to, and no file the tools write follows a symbolic
/// link that user could have planted.
@Suite("a shared state directory: refused, and no symbolic link is followed")
struct SharedStateDirectoryTests: ClientToolSuite {
    let directory: TemporaryDirectory
    let stateDirectory: String
    let setup: ProviderSetup
    var clientSettings: [String: String] { environment }
    var environment: [String: String] {
        [
            "HOME": directory.file("home"), "APNS_STATE_FILE": stateDirectory + "/devices.json",
            "PUSHKIT_STATE_DIR": stateDirectory,
        ]
    }

    init() throws {
        directory = try TemporaryDirectory()
        stateDirectory = directory.file("state")
        setup = try ProviderSetup(directory: directory)
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    @Test("a state directory writable by every user or by its group: exit 78, nothing written, check says why")
    func writableByOthers() throws {
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: environment).expectSuccess()
        let before = try Data(contentsOf: URL(fileURLWithPath: stateDirectory + "/devices.json"))
        for mode in [0o777, 0o770, 0o1777] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: stateDirectory)
            let refused = try BuiltTool.run("register-apns", ["add", "tablet", hexToken(2)], environment: environment)
            #expect(refused.status == 78, "mode \(String(mode, radix: 8)): \(refused.stderr)")
            #expect(refused.stderr.contains("chmod 700 \(stateDirectory)"), "\(refused.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: stateDirectory + "/devices.json")) == before)
            let check = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
            #expect(check.stdout.contains("writable by"), "\(check.stdout)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: stateDirectory)
        try BuiltTool.run("register-apns", ["add", "tablet", hexToken(2)], environment: environment).expectSuccess()
    }

    @Test("a devices file in a directory others can write to is not read: send-push exits 78 and sends nothing")
    func plantedRegistryNotRead() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        // What another user could have put there: a device with their token.
        try register("attacker", hexToken(666), env: env)
        let devicesFile = stateDirectory + "/devices.json"
        let before = try Data(contentsOf: URL(fileURLWithPath: devicesFile))
        for mode in [0o777, 0o1777, 0o770] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: stateDirectory)
            let send = try BuiltTool.run("send-push", ["--body", "for my phone only"], environment: env)
            #expect(send.status == 78, "mode \(String(mode, radix: 8)): \(send.stderr)")
            #expect(
                send.stderr.contains("refusing to read the registry in \(stateDirectory)")
                    && send.stderr.contains("chmod 700 \(stateDirectory)"), "\(send.stderr)")
            #expect(!send.stdout.contains("delivered") && !send.stderr.contains("delivered"))
            let list = try BuiltTool.run("register-apns", ["list"], environment: env)
            #expect(list.status == 78 && list.stdout.isEmpty, "\(list.stdout)\(list.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: devicesFile)) == before, "nothing written")
        }
        #expect(emulator.records().isEmpty, "nothing reached APNs")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: stateDirectory)
        try BuiltTool.run("send-push", ["--body", "hi"], environment: env).expectSuccess()
        #expect(emulator.waitForRecords(1).count == 1)
    }

    @Test("the provider token cache in a directory others can write to is neither used nor written")
    func plantedTokenCacheNotUsed() throws {
        let (_, _, env) = setup.withoutTopic()
        var environment = env
        environment["PUSHKIT_STATE_DIR"] = stateDirectory
        let cached = try BuiltTool.run("apns-jwt", [], environment: environment)
        cached.expectSuccess()
        let cache = stateDirectory + "/provider-tokens.json"
        let planted = try Data(contentsOf: URL(fileURLWithPath: cache))
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: stateDirectory)
        let fresh = try BuiltTool.run("apns-jwt", [], environment: environment)
        fresh.expectSuccess()
        #expect(fresh.stdout != cached.stdout, "a newly signed token, not the one in the cache")
        #expect(
            fresh.stderr.contains("provider token not cached") && fresh.stderr.contains("chmod 700 \(stateDirectory)"),
            "\(fresh.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == planted, "nothing written")
    }

    @Test("a lock file planted as a symbolic link is not followed: the write fails and the target is not created")
    func plantedLockLink() throws {
        let victim = directory.file("victim-file")
        try FileManager.default.createSymbolicLink(
            atPath: stateDirectory + "/devices.json.lock", withDestinationPath: victim)
        let refused = try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: environment)
        #expect(refused.status != 0, "\(refused.stderr)")
        #expect(refused.stderr.contains("devices.json.lock"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: victim), "nothing created where the link points")
    }

    @Test("an existing devices file readable by others: check warns and says how to fix it")
    func readableDevicesFile() throws {
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(1)], environment: environment).expectSuccess()
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: stateDirectory + "/devices.json")
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: environment)
        #expect(check.stdout.contains("readable by other users (mode 644)"), "\(check.stdout)")
        #expect(check.stdout.contains("chmod 600"), "\(check.stdout)")
    }
}
