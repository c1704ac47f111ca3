import Foundation
import Testing

@testable import PushKitFreeCore

@Suite("The endpoint settings (endpoint, endpoint_secret_file)")
struct EndpointAccessTests {
    func resolve(
        flags: ConfigurationFlags = ConfigurationFlags(), env: [String: String] = [:],
        file values: [String: JSONValue] = [:]
    ) throws -> Configuration {
        var environment = env
        environment["HOME"] = "/home/ada"
        return try Configuration(
            flags: flags, environment: environment,
            file: ConfigurationFile(path: "/etc/pk/config.json", exists: true, values: values),
            workingDirectory: "/srv/work")
    }

    @Test("flag beats environment beats file; the secret file's path made absolute like the key path")
    func precedence() throws {
        #expect(try resolve().endpoint == nil && resolve().endpointSecretFile == nil)
        let file: [String: JSONValue] = ["endpoint": "http://file:1", "endpoint_secret_file": "serve.secret"]
        let fromFile = try resolve(file: file)
        #expect(
            fromFile.endpoint
                == Setting("http://file:1", from: .configFile(key: "endpoint", path: "/etc/pk/config.json")))
        #expect(fromFile.endpointSecretFile?.value == "/etc/pk/serve.secret")
        let env = ["PUSHKIT_ENDPOINT": "https://env:2", "PUSHKIT_ENDPOINT_SECRET_FILE": "~/s"]
        let fromEnvironment = try resolve(env: env, file: file)
        #expect(fromEnvironment.endpoint == Setting("https://env:2", from: .environment("PUSHKIT_ENDPOINT")))
        #expect(fromEnvironment.endpointSecretFile?.value == "/home/ada/s")
        var flags = ConfigurationFlags()
        flags.endpoint = "http://flag:3"
        flags.endpointSecretFile = "flag.secret"
        let fromFlags = try resolve(flags: flags, env: env, file: file)
        #expect(fromFlags.endpoint == Setting("http://flag:3", from: .flag("--endpoint")))
        #expect(fromFlags.endpointSecretFile == Setting("/srv/work/flag.secret", from: .flag("--secret-file")))
        #expect(ConfigurationFile(path: "/c", exists: true, values: file).warnings.isEmpty)
    }

    @Test("an endpoint that is not an http(s) URL is refused by name")
    func notHTTP() {
        #expect {
            try resolve(env: ["PUSHKIT_ENDPOINT": "127.0.0.1:8100"])
        } throws: {
            "\($0)" == "PUSHKIT_ENDPOINT must be an http(s) URL, not \"127.0.0.1:8100\""
        }
    }

    @Test("a missing setting names its key (exit 78); the secret is read without its line end, never shown")
    func access() throws {
        #expect {
            try EndpointAccess.resolve(resolve())
        } throws: {
            let error = $0 as? ConfigurationError
            return error?.exitStatus == .configuration
                && "\($0)".hasPrefix("no endpoint: set --endpoint, PUSHKIT_ENDPOINT or endpoint")
        }
        #expect {
            try EndpointAccess.resolve(resolve(file: ["endpoint": "http://x/"]))
        } throws: {
            "\($0)".hasPrefix(
                "no endpoint secret: set --secret-file, PUSHKIT_ENDPOINT_SECRET_FILE or endpoint_secret_file")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("endpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("secret").path
        FileManager.default.createFile(
            atPath: path, contents: Data("hunter2-secret\r\n".utf8), attributes: [.posixPermissions: 0o600])
        let access = try EndpointAccess.resolve(
            resolve(file: ["endpoint": "http://127.0.0.1:8100//", "endpoint_secret_file": .string(path)]))
        #expect(
            access.secret == "hunter2-secret" && access.baseURL == "http://127.0.0.1:8100" && access.warnings.isEmpty)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let open = try EndpointAccess.resolve(
            resolve(file: ["endpoint": "http://x", "endpoint_secret_file": .string(path)]))
        #expect(open.warnings.count == 1 && open.warnings[0].contains("chmod 600 \(path)"))
        #expect(!open.warnings[0].contains("hunter2"))
        FileManager.default.createFile(atPath: path, contents: Data("\n".utf8))
        #expect {
            try EndpointAccess.resolve(resolve(file: ["endpoint": "http://x", "endpoint_secret_file": .string(path)]))
        } throws: {
            "\($0)".hasSuffix("is empty")
        }
        #expect {
            try EndpointAccess.resolve(
                resolve(file: ["endpoint": "http://x", "endpoint_secret_file": .string(path + ".missing")]))
        } throws: {
            "\($0)".hasSuffix("does not exist")
        }
    }
}
