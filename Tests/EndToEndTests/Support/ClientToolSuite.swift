import Foundation
import Testing

/// A test device token: 32 bytes in hex, `filler` 28 times then `n` as eight hex digits, so each
/// test's tokens differ and a suite's tokens are recognisable in output (`abab…0001`).
func hexToken(_ n: Int, filler: String = "cd") -> String {
    String(repeating: filler, count: 28) + String(format: "%08x", n)
}

/// A test FCM registration token of today's shape: an instance id ending in `n` as six digits, a
/// colon, `APA91b` and 140 more characters (155 in all), as the Firebase Messaging SDK gives one.
func fcmTokenText(_ n: Int) -> String {
    String(format: "fJ3kQ9xY%06d", n) + ":APA91b" + String(repeating: "Xy_9-Qw3Er", count: 14)
}

/// The `devices` object of the version 1 state file at `path`: each device id's record.
func stateFileDevices(_ path: String) throws -> [String: [String: Any]] {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    return try #require(object?["devices"] as? [String: [String: Any]])
}

/// A suite whose tests run the client tools (`register-apns`, `send-push`) with the keys of its
/// `ProviderSetup` against a `RunningEmulator`: their environment and the registration step.
protocol ClientToolSuite {
    var setup: ProviderSetup { get }
    /// What the suite sets for every client on top of the provider settings and APNs addresses
    /// (`APNS_STATE_FILE`, `PATH`, ...).
    var clientSettings: [String: String] { get }
}

extension ClientToolSuite {
    /// The clients' environment: the provider settings; `emulator` as APNs in production and sandbox
    /// (`sandbox` in sandbox when given; with `plain`, their prior-knowledge `http://` addresses),
    /// its CA trusted; without an emulator a closed port, so nothing can be delivered; then the
    /// suite's `clientSettings`.
    func clientEnvironment(
        _ emulator: RunningEmulator?, sandbox: RunningEmulator? = nil,
        plain: Bool = false
    ) -> [String: String] {
        func address(_ server: RunningEmulator?) -> String {
            guard let server else { return "https://127.0.0.1:1" }
            return plain ? server.plainURL : server.baseURL
        }
        var env = setup.environment
        env["APNS_PRODUCTION_URL"] = address(emulator)
        env["APNS_SANDBOX_URL"] = address(sandbox ?? emulator)
        if let emulator { env["APNS_CA_FILE"] = emulator.caPath }
        if let management = emulator?.managementURL {
            env["APNS_PRODUCTION_MANAGE_URL"] = management
            env["APNS_SANDBOX_MANAGE_URL"] = (sandbox ?? emulator)?.managementURL ?? management
        }
        return env.merging(clientSettings) { _, suite in suite }
    }

    /// `register-apns add ARGUMENTS` (device id, token, options), which must succeed.
    func register(_ arguments: [String], env: [String: String]) throws {
        try BuiltTool.run("register-apns", ["add"] + arguments, environment: env).expectSuccess()
    }

    /// `register-apns add ID TOKEN EXTRA`, which must succeed.
    func register(_ id: String, _ token: String, _ extra: [String] = [], env: [String: String]) throws {
        try register([id, token] + extra, env: env)
    }
}
