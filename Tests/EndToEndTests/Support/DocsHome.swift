import Foundation

/// What a page of the docs assumes when its commands run: a home directory whose
/// `~/keys/AuthKey_ABCDE12345.p8` holds a provider key, and an `apns-emulator` trusting that key
/// standing in for both APNs environments (`APNS_PRODUCTION_URL`, `APNS_SANDBOX_URL`,
/// `APNS_CA_FILE`), since Apple is not reachable from a test. The docs' command tests
/// (`DocsCommandsTests`) and the migration pages' (`MigrationPagesTests`) use it.
struct DocsHome {
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM678901"

    let directory: TemporaryDirectory
    let home: String
    let keyPath: String
    let emulator: RunningEmulator
    /// The commands' environment: HOME, USER, PATH with the built tools first, the emulator for both
    /// hosts.
    let environment: [String: String]

    /// - Parameter topic: the app's bundle id the emulator accepts.
    init(topic: String) throws {
        directory = try TemporaryDirectory()
        home = directory.file("home")
        try FileManager.default.createDirectory(atPath: home + "/keys", withIntermediateDirectories: true)
        let key = try OpenSSLKey(in: directory)
        keyPath = home + "/keys/AuthKey_\(Self.keyID).p8"
        try FileManager.default.copyItem(atPath: key.pkcs8Path, toPath: keyPath)
        emulator = try RunningEmulator(
            ["--quiet"],
            environment: [
                "HOME": directory.file("emulator-home"), "APNS_KEY_PATH": keyPath, "APNS_KEY_ID": Self.keyID,
                "APNS_TEAM_ID": Self.teamID, "APNS_TOPIC": topic,
            ])
        let systemPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        environment = [
            "HOME": home, "USER": ProcessInfo.processInfo.userName, "PATH": BuiltTool.binDirectory + ":" + systemPath,
            "APNS_PRODUCTION_URL": emulator.baseURL, "APNS_SANDBOX_URL": emulator.baseURL,
            "APNS_CA_FILE": emulator.caPath,
        ]
    }

    /// `script` run by bash in `environment` plus `extra`, waited for.
    func bash(_ script: String, extra: [String: String] = [:], directory: String? = nil) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = BuiltTool.childEnvironment(environment.merging(extra) { _, new in new })
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        return try RunningTool(process, stdin: nil).wait()
    }
}
