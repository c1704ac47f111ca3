import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport

/// The precedence table: for every setting, flag > environment variable > config file > default.
@Suite("configuration precedence")
struct ConfigurationTests {
    let home = "/home/ada"

    func file(_ values: [String: JSONValue]) -> ConfigurationFile {
        ConfigurationFile(path: "/etc/pk.json", exists: true, values: values)
    }

    func resolve(
        flags: ConfigurationFlags = ConfigurationFlags(), env: [String: String] = [:],
        file values: [String: JSONValue] = [:]
    ) throws -> Configuration {
        var environment = env
        environment["HOME"] = environment["HOME"] ?? home
        return try Configuration(flags: flags, environment: environment, file: file(values))
    }

    /// One row of the table: how each layer sets a string setting, and how to read it back.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let flag: @Sendable (inout ConfigurationFlags, String) -> Void
        let variable: String
        let key: String
        let read: @Sendable (Configuration) -> Setting<String>?
        let defaultValue: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "key path", flag: { $0.keyPath = $1 }, variable: "APNS_KEY_PATH", key: "key_path",
            read: { $0.keyPath }, defaultValue: nil),
        Row(
            name: "key id", flag: { $0.keyID = $1 }, variable: "APNS_KEY_ID", key: "key_id", read: { $0.keyID },
            defaultValue: nil),
        Row(
            name: "team id", flag: { $0.teamID = $1 }, variable: "APNS_TEAM_ID", key: "team_id", read: { $0.teamID },
            defaultValue: nil),
        Row(
            name: "topic", flag: { $0.topic = $1 }, variable: "APNS_TOPIC", key: "bundle_id", read: { $0.topic },
            defaultValue: nil),
        Row(
            name: "ca file", flag: { $0.caFile = $1 }, variable: "APNS_CA_FILE", key: "ca_file", read: { $0.caFile },
            defaultValue: nil),
        Row(
            name: "devices file", flag: { $0.stateFile = $1 }, variable: "APNS_STATE_FILE", key: "state_file",
            read: { $0.stateFile },
            defaultValue: "/home/ada/.local/state/pushkit-free/devices.json"),
        Row(
            name: "production url", flag: { $0.apnsURL = $1 }, variable: "APNS_PRODUCTION_URL", key: "production_url",
            read: { $0.baseURL(for: .production) }, defaultValue: "https://api.push.apple.com"),
    ]

    @Test("flag beats environment beats file beats default", arguments: rows)
    func precedence(row: Row) throws {
        let value = { (layer: String) in row.name.hasSuffix("url") ? "https://\(layer).example" : "/\(layer)/v" }
        var flags = ConfigurationFlags()
        row.flag(&flags, value("flag"))
        let env = [row.variable: value("env")]
        let fileValues: [String: JSONValue] = [row.key: .string(value("file"))]

        let all = try #require(row.read(try resolve(flags: flags, env: env, file: fileValues)))
        #expect(all.value == value("flag"))
        #expect(all.source.kind == "flag")

        let envAndFile = try #require(row.read(try resolve(env: env, file: fileValues)))
        #expect(envAndFile.value == value("env"))
        #expect(envAndFile.source == .environment(row.variable))

        let fileOnly = try #require(row.read(try resolve(file: fileValues)))
        #expect(fileOnly.value == value("file"))
        #expect(fileOnly.source == .configFile(key: row.key, path: "/etc/pk.json"))

        let none = row.read(try resolve())
        #expect(none?.value == row.defaultValue)
        if row.defaultValue != nil { #expect(none?.source == .defaultValue) }
    }

    @Test("the config existing users already have is accepted unchanged")
    func legacyConfig() throws {
        let json =
            #"{"team_id": "TEAM123456", "key_id": "KEY1234567", "bundle_id": "com.yourcompany.Sven", "key_path": "~/.claude/secrets/apns-key.p8", "use_sandbox": false}"#
        let file = try ConfigurationFile(path: "/c.json", contents: Data(json.utf8))
        let configuration = try Configuration(flags: ConfigurationFlags(), environment: ["HOME": home], file: file)
        #expect(configuration.teamID?.value == "TEAM123456")
        #expect(configuration.keyID?.value == "KEY1234567")
        #expect(configuration.topic?.value == "com.yourcompany.Sven")
        #expect(configuration.keyPath?.value == "/home/ada/.claude/secrets/apns-key.p8")
        #expect(configuration.environment.value == .production)
        #expect(configuration.environment.source == .configFile(key: "use_sandbox", path: "/c.json"))
        #expect(configuration.warnings.isEmpty)
    }

    @Test("environment: flag, APNS_ENVIRONMENT, APNS_SANDBOX, environment key, use_sandbox, default")
    func environmentPrecedence() throws {
        var flags = ConfigurationFlags()
        flags.environment = .production
        flags.environmentFlag = "--production"
        let everything = try resolve(
            flags: flags, env: ["APNS_ENVIRONMENT": "sandbox", "APNS_SANDBOX": "true"],
            file: ["environment": "sandbox", "use_sandbox": true])
        #expect(everything.environment == Setting(.production, from: .flag("--production")))

        let env = try resolve(
            env: ["APNS_ENVIRONMENT": "development", "APNS_SANDBOX": "false"], file: ["use_sandbox": false])
        #expect(env.environment == Setting(.sandbox, from: .environment("APNS_ENVIRONMENT")))

        let sandboxVariable = try resolve(env: ["APNS_SANDBOX": "true"], file: ["environment": "production"])
        #expect(sandboxVariable.environment == Setting(.sandbox, from: .environment("APNS_SANDBOX")))

        let fileKey = try resolve(file: ["environment": "sandbox", "use_sandbox": false])
        #expect(fileKey.environment.value == .sandbox)

        let useSandbox = try resolve(file: ["use_sandbox": true])
        #expect(
            useSandbox.environment == Setting(.sandbox, from: .configFile(key: "use_sandbox", path: "/etc/pk.json")))

        #expect(try resolve().environment == Setting(.production, from: .defaultValue))
    }

    @Test("APNS_TOPIC beats APNS_BUNDLE_ID; bundle_id beats topic in the file")
    func topicAliases() throws {
        #expect(try resolve(env: ["APNS_TOPIC": "a.b", "APNS_BUNDLE_ID": "c.d"]).topic?.value == "a.b")
        #expect(try resolve(env: ["APNS_BUNDLE_ID": "c.d"]).topic?.source == .environment("APNS_BUNDLE_ID"))
        #expect(try resolve(file: ["bundle_id": "e.f", "topic": "g.h"]).topic?.value == "e.f")
        #expect(try resolve(file: ["topic": "g.h"]).topic?.value == "g.h")
    }

    @Test("--apns-url replaces whichever environment is used; the sandbox URL has its own layers")
    func urls() throws {
        var flags = ConfigurationFlags()
        flags.apnsURL = "https://127.0.0.1:2197"
        let overridden = try resolve(flags: flags, env: ["APNS_SANDBOX_URL": "https://sb.example"])
        #expect(overridden.baseURL(for: .sandbox).value == "https://127.0.0.1:2197")
        #expect(overridden.baseURL(for: .production).value == "https://127.0.0.1:2197")

        #expect(
            try resolve(env: ["APNS_SANDBOX_URL": "https://sb.example"], file: ["sandbox_url": "https://f.example"])
                .baseURL(for: .sandbox).value == "https://sb.example")
        #expect(try resolve(file: ["sandbox_url": "https://f.example"]).baseURL(for: .sandbox).source.kind == "file")
        #expect(
            try resolve().baseURL(for: .sandbox) == Setting("https://api.sandbox.push.apple.com", from: .defaultValue))
    }

    @Test(
        "state directory: PUSHKIT_STATE_DIR > state_dir > XDG_STATE_HOME > ~/.local/state, and the devices file follows it"
    )
    func stateDirectory() throws {
        let fromEnv = try resolve(
            env: ["PUSHKIT_STATE_DIR": "/srv/pk", "XDG_STATE_HOME": "/x"], file: ["state_dir": "/f"])
        #expect(fromEnv.stateDirectory == Setting("/srv/pk", from: .environment("PUSHKIT_STATE_DIR")))
        #expect(fromEnv.stateFile.value == "/srv/pk/devices.json")
        #expect(fromEnv.tokenCachePath == "/srv/pk/provider-tokens.json")
        #expect(
            try resolve(env: ["XDG_STATE_HOME": "/x"], file: ["state_dir": "~/pk"]).stateDirectory.value
                == "/home/ada/pk")
        #expect(try resolve(env: ["XDG_STATE_HOME": "/x"]).stateDirectory.value == "/x/pushkit-free")
        #expect(
            try resolve(env: ["XDG_STATE_HOME": "relative/ignored"]).stateDirectory.value
                == "/home/ada/.local/state/pushkit-free")
        #expect(try resolve().stateDirectory == Setting("/home/ada/.local/state/pushkit-free", from: .defaultValue))
    }

    @Test("config file path: --config > PUSHKIT_CONFIG > XDG_CONFIG_HOME > ~/.config")
    func configFilePath() throws {
        let dir = try makeTemporaryDirectory()
        let flagFile = dir + "/flag.json", envFile = dir + "/env.json"
        try Data(#"{"key_id":"FLAG000000"}"#.utf8).write(to: URL(fileURLWithPath: flagFile))
        try Data(#"{"key_id":"ENV0000000"}"#.utf8).write(to: URL(fileURLWithPath: envFile))
        try FileManager.default.createDirectory(atPath: dir + "/xdg/pushkit-free", withIntermediateDirectories: true)
        try Data(#"{"key_id":"XDG0000000"}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/xdg/pushkit-free/config.json"))
        var flags = ConfigurationFlags()
        flags.configPath = flagFile
        let env = ["HOME": dir, "PUSHKIT_CONFIG": envFile, "XDG_CONFIG_HOME": dir + "/xdg"]
        #expect(try Configuration.resolve(flags: flags, environment: env).keyID?.value == "FLAG000000")
        #expect(try Configuration.resolve(flags: ConfigurationFlags(), environment: env).keyID?.value == "ENV0000000")
        let xdg = try Configuration.resolve(
            flags: ConfigurationFlags(), environment: ["HOME": dir, "XDG_CONFIG_HOME": dir + "/xdg"])
        #expect(xdg.keyID?.value == "XDG0000000")
        #expect(xdg.fileSource == .defaultValue)
        let none = try Configuration.resolve(flags: ConfigurationFlags(), environment: ["HOME": dir])
        #expect(none.file.path == dir + "/.config/pushkit-free/config.json")
        #expect(!none.file.exists)
    }

    @Test("the system-wide config: XDG_CONFIG_DIRS, then /etc/pushkit-free or PUSHKIT_SYSTEM_CONFIG; empty: none")
    func systemConfigFile() {
        let present: Set = ["/etc/xdg/pushkit-free/config.json", "/etc/pushkit-free/config.json", "/srv/pk.json"]
        func location(_ environment: [String: String]) -> Setting<String> {
            Configuration.configFileLocation(
                flags: ConfigurationFlags(), environment: ["HOME": "/home/ada"].merging(environment) { $1 },
                exists: { present.contains($0) })
        }
        #expect(location([:]).value == "/etc/xdg/pushkit-free/config.json")
        let dirs = ["XDG_CONFIG_DIRS": "/nowhere"]
        #expect(location(dirs).value == "/etc/pushkit-free/config.json")
        #expect(location(dirs.merging(["PUSHKIT_SYSTEM_CONFIG": "/srv/pk.json"]) { $1 }).value == "/srv/pk.json")
        let none = location(dirs.merging(["PUSHKIT_SYSTEM_CONFIG": ""]) { $1 })
        #expect(none == Setting("/home/ada/.config/pushkit-free/config.json", from: .defaultValue))
        let missing = location(dirs.merging(["PUSHKIT_SYSTEM_CONFIG": "/srv/absent.json"]) { $1 })
        #expect(missing.value == "/home/ada/.config/pushkit-free/config.json", "a named file that is not there: none")
    }

    @Test("unknown keys are warnings, not errors")
    func unknownKeys() throws {
        let configuration = try resolve(file: ["bundle_id": "a.b", "colour": "blue", "retries": 3])
        #expect(
            configuration.warnings == [
                #"ignoring unknown key "colour" in /etc/pk.json"#,
                #"ignoring unknown key "retries" in /etc/pk.json"#,
            ])
    }

    @Test("bad values name the variable, key or file at fault")
    func badValues() throws {
        #expect { try resolve(env: ["APNS_ENVIRONMENT": "staging"]) } throws: { error in
            "\(error)" == #"APNS_ENVIRONMENT must be production or sandbox, not "staging""#
        }
        #expect { try resolve(env: ["APNS_SANDBOX": "maybe"]) } throws: {
            "\($0)".contains("APNS_SANDBOX must be true or false")
        }
        #expect { try resolve(file: ["use_sandbox": "perhaps"]) } throws: {
            "\($0)".contains("use_sandbox in /etc/pk.json must be true or false")
        }
        #expect { try resolve(file: ["key_id": 12]) } throws: {
            "\($0)" == "key_id in /etc/pk.json must be a string, not a number"
        }
        #expect { try resolve(env: ["APNS_PRODUCTION_URL": "api.push.apple.com"]) } throws: {
            "\($0)".contains("APNS_PRODUCTION_URL must be an http(s) URL")
        }
        #expect { try ConfigurationFile(path: "/c.json", contents: Data("{\"a\":".utf8)) } throws: { error in
            (error as? ConfigurationError)?.exitStatus == .configuration
                && "\(error)".hasPrefix("config file /c.json is not valid JSON")
        }
        #expect { try ConfigurationFile(path: "/c.json", contents: Data("[1]".utf8)) } throws: {
            "\($0)" == "config file /c.json must hold a JSON object, not a array"
        }
    }

    @Test("a config file named explicitly must exist (exit 66); the default one may be missing")
    func missingConfigFile() throws {
        var flags = ConfigurationFlags()
        flags.configPath = "/nonexistent/pk.json"
        #expect { try Configuration.resolve(flags: flags, environment: ["HOME": "/nonexistent"]) } throws: { error in
            (error as? ConfigurationError)?.exitStatus == .noInput
                && "\(error)" == "config file /nonexistent/pk.json (from --config) does not exist"
        }
        #expect(
            try !Configuration.resolve(flags: ConfigurationFlags(), environment: ["HOME": "/nonexistent"]).file.exists)
    }
}

/// Paths are absolute once read: a config file's relative to its own directory, a flag's or a
/// variable's to the working directory, so a background delivery (run from `/`) finds them.
@Suite("configuration paths")
struct ConfigurationPathTests {
    func resolve(
        file path: String, _ values: [String: JSONValue], env: [String: String] = [:],
        flags: ConfigurationFlags = ConfigurationFlags()
    ) throws -> Configuration {
        var environment = env
        environment["HOME"] = "/home/ada"
        return try Configuration(
            flags: flags, environment: environment, file: ConfigurationFile(path: path, exists: true, values: values),
            workingDirectory: "/srv/hooks")
    }

    @Test("a config file's relative paths are under its directory, ./ and ../ as written")
    func relativeToTheFile() throws {
        let configuration = try resolve(
            file: "/etc/pushkit-free/config.json",
            [
                "ca_file": "tls.pem", "key_path": "./keys/AuthKey.p8", "state_file": "../state/devices.json",
                "state_dir": "state",
            ])
        #expect(configuration.caFile?.value == "/etc/pushkit-free/tls.pem")
        #expect(configuration.keyPath?.value == "/etc/pushkit-free/keys/AuthKey.p8")
        #expect(configuration.stateFile.value == "/etc/pushkit-free/../state/devices.json")
        #expect(configuration.stateDirectory.value == "/etc/pushkit-free/state")
    }

    @Test("a config file named by a relative path: its directory under the working directory")
    func relativeFile() throws {
        let configuration = try resolve(file: "conf/config.json", ["ca_file": "tls.pem"])
        #expect(configuration.caFile?.value == "/srv/hooks/conf/tls.pem")
        let bare = try resolve(file: "config.json", ["ca_file": "tls.pem"])
        #expect(bare.caFile?.value == "/srv/hooks/tls.pem")
    }

    @Test("flags and variables are under the working directory; absolute paths, ~ and URLs as they are")
    func relativeToTheWorkingDirectory() throws {
        var flags = ConfigurationFlags()
        flags.keyPath = "AuthKey.p8"
        let configuration = try resolve(
            file: "/etc/pk.json", ["ca_file": "/etc/ssl/ca.pem", "state_dir": "~/state"],
            env: ["APNS_STATE_FILE": "postgres://db/pushkit", "APNS_CA_FILE": "ca.pem"], flags: flags)
        #expect(configuration.keyPath?.value == "/srv/hooks/AuthKey.p8")
        #expect(configuration.caFile?.value == "/srv/hooks/ca.pem", "the variable wins, under the working directory")
        #expect(configuration.stateFile.value == "postgres://db/pushkit")
        #expect(configuration.stateDirectory.value == "/home/ada/state")
    }
}
