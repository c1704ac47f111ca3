import Foundation
import Testing

/// Inputs an attacker or an accident supplies to the command lines: files that are not files
/// (`/dev/zero`, a FIFO nobody writes to), escape sequences in arguments, a plain-http APNs URL to
/// another host or one carrying a password, and a client whose clock is behind the emulator's.
@Suite("hostile inputs: special files, escape sequences, plain http, a clock behind")
struct HostileInputTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    /// A FIFO nobody writes to: reading it would block for ever.
    func fifo(_ name: String) throws -> String {
        let path = setup.directory.file(name)
        #expect(mkfifo(path, 0o600) == 0)
        return path
    }

    @Test("a key file that is /dev/zero or a FIFO: refused at once (66), never read")
    func specialKeyFiles() throws {
        for path in ["/dev/zero", try fifo("key.fifo")] {
            var env = setup.environment
            env["APNS_KEY_PATH"] = path
            let run = try BuiltTool.run("apns-jwt", [], environment: env)
            #expect(run.status == 66, "\(path): \(run.stderr)")
            #expect(run.stderr.contains("not a regular file"), "\(run.stderr)")
        }
    }

    @Test("a config file that is a FIFO or /dev/zero: refused at once, every tool and check")
    func specialConfigFiles() throws {
        for path in [try fifo("config.fifo"), "/dev/zero"] {
            var env = setup.environment
            env["PUSHKIT_CONFIG"] = path
            let list = try BuiltTool.run("register-apns", ["list"], environment: env)
            #expect(list.status == 66, "\(path): \(list.stderr)")
            #expect(list.stderr.contains("not a regular file"), "\(list.stderr)")
            let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
            #expect(check.status == 78 && check.stdout.contains("not a regular file"), "\(check.stdout)")
        }
    }

    @Test("a serve secret file that is a FIFO: refused at start (78), not a hang")
    func specialSecretFile() throws {
        let secret = try fifo("secret.fifo")
        let run = try BuiltTool.run(
            "register-apns", ["serve", "--listen", "127.0.0.1:0", "--secret-file", secret],
            environment: setup.environment)
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("not a regular file") || run.stderr.contains("accessible"), "\(run.stderr)")
    }

    /// A memory limit far above what any input may take once read, so that a read without a limit
    /// dies of it in a second or two instead of filling the machine's memory.
    static let memoryLimit = "ulimit -v 2097152"

    @Test(
        "/dev/zero as any input read whole: refused (65) at its limit, naming it and the limit; nothing written or sent",
        arguments: [
            (
                ["register-apns", "add", "phone", hexToken(1), "--content-key-file", "/dev/zero"], "",
                "--content-key-file /dev/zero is larger than 4 KiB (4096 bytes)"
            ),
            (
                ["register-apns", "add", "phone", hexToken(1), "--content-key-file", "-"], "exec < /dev/zero",
                "--content-key-file - is larger than 4 KiB (4096 bytes)"
            ),
            (
                ["register-apns", "add", "--from-json", "/dev/zero"], "",
                "/dev/zero is larger than 64 MiB (67108864 bytes)"
            ),
            (
                ["register-apns", "add", "--from-json", "-"], "exec < /dev/zero",
                "standard input is larger than 64 MiB (67108864 bytes)"
            ),
            (["register-apns", "import", "/dev/zero"], "", "/dev/zero is larger than 64 MiB (67108864 bytes)"),
            (["register-apns", "import", "-"], "exec < /dev/zero", "standard input is larger than 64 MiB"),
            (
                ["send-push", "--payload-file", "/dev/zero"], "",
                "--payload-file /dev/zero is larger than 64 KiB (65536 bytes)"
            ),
            (["send-push", "--payload-file", "-"], "exec < /dev/zero", "--payload-file - is larger than 64 KiB"),
            (
                ["send-push", "--title", "Log", "--body", "-"], "exec < /dev/zero",
                "standard input (--body -) is larger than 1 MiB (1048576 bytes)"
            ),
            (["apns-jwt", "decode", "-"], "exec < /dev/zero", "standard input is larger than 4 KiB (4096 bytes)"),
        ] as [([String], String, String)])
    func endlessInputs(_ command: [String], redirection: String, message: String) throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        let before = try Data(contentsOf: URL(fileURLWithPath: devicesFile))
        let prelude = [Self.memoryLimit, redirection].filter { !$0.isEmpty }.joined(separator: " && ")
        let run = try BuiltTool.run(command[0], Array(command.dropFirst()), environment: env, prelude: prelude)
        #expect(run.status == 65, "\(command): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(command): \(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: devicesFile)) == before, "nothing written")
        #expect(emulator.records().isEmpty, "nothing sent")
    }

    @Test("a file one byte over its limit is refused (65); one at the limit is read")
    func limitsToTheByte() throws {
        let env = clientEnvironment(nil)
        try register("phone", hexToken(1), env: env)
        let before = try Data(contentsOf: URL(fileURLWithPath: devicesFile))
        // A key padded with spaces to 4096 bytes is the key: a file's white space is not part of it.
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let padded = try setup.directory.write("key", key + String(repeating: " ", count: 4096 - key.utf8.count))
        let over = try setup.directory.write("key-over", key + String(repeating: " ", count: 4097 - key.utf8.count))
        let refused = try BuiltTool.run(
            "register-apns", ["add", "phone", hexToken(1), "--content-key-file", over], environment: env)
        #expect(refused.status == 65 && refused.stderr.contains("larger than 4 KiB"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: devicesFile)) == before, "nothing written")
        try BuiltTool.run(
            "register-apns", ["add", "phone", hexToken(1), "--content-key-file", padded], environment: env
        )
        .expectSuccess()
        #expect(try stateFileDevices(devicesFile)["phone"]?["content_key"] as? String == key)

        // A payload of 64 KiB is read, and refused for what APNs would refuse; 1 byte more is not read.
        let payload = #"{"aps": {"alert": "hi"}}"#
        let atLimit = try setup.directory.write(
            "at.json", payload + String(repeating: " ", count: 65536 - payload.count))
        let overLimit = try setup.directory.write(
            "over.json", payload + String(repeating: " ", count: 65537 - payload.count))
        let large = try BuiltTool.run("send-push", ["--payload-file", atLimit, "--dry-run"], environment: env)
        #expect(large.status == 65 && !large.stderr.contains("larger than 64 KiB"), "\(large.stderr)")
        #expect(large.stderr.contains("4096"), "APNs' limit: \(large.stderr)")
        let tooLarge = try BuiltTool.run("send-push", ["--payload-file", overLimit, "--dry-run"], environment: env)
        #expect(tooLarge.status == 65, "\(tooLarge.stderr)")
        #expect(tooLarge.stderr.contains("--payload-file \(overLimit) is larger than 64 KiB"), "\(tooLarge.stderr)")

        // Standard input for --body: 1 MiB of text is read (and cut to fit), 1 byte more is not.
        let text = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        let long = try BuiltTool.run("send-push", ["--body", "-", "--dry-run"], environment: env, stdin: text)
        long.expectSuccess()
        let longer = try BuiltTool.run(
            "send-push", ["--body", "-", "--dry-run"], environment: env, stdin: text + Data("a".utf8))
        #expect(longer.status == 65 && longer.stderr.contains("larger than 1 MiB"), "\(longer.stderr)")
    }

    @Test("an argument holding escape sequences is shown escaped in argument parsing's errors")
    func escapedUsageErrors() throws {
        let hostile = "--ti\u{1B}[2J\u{1B}[31mtle\r"
        for (tool, arguments) in [
            ("send-push", [hostile, "x"]), ("register-apns", ["list", hostile]), ("apns-jwt", ["check", hostile]),
        ] {
            let run = try BuiltTool.run(tool, arguments, environment: setup.environment)
            #expect(run.status == 64, "\(tool): \(run.stderr)")
            #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\r"), "\(tool) echoed raw control bytes")
            #expect(run.stderr.contains("\\u{1B}[2J"), "\(tool): \(run.stderr)")
        }
    }

    @Test("check shows a key path holding escape sequences escaped, never raw")
    func checkEscapesValues() throws {
        var env = setup.environment
        env["APNS_KEY_PATH"] = setup.directory.file("key\u{1B}]0;owned\u{07}.p8")
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(check.status == 78, "\(check.stdout)")
        #expect(!check.stdout.contains("\u{1B}") && !check.stdout.contains("\u{07}"), "\(check.stdout)")
        #expect(check.stdout.contains("key\\u{1B}]0;owned\\u{7}.p8"), "\(check.stdout)")
    }

    @Test("check: plain http to another host is an error, credentials in a URL are masked")
    func plainHTTPAndCredentials() throws {
        var env = setup.environment
        env["APNS_PRODUCTION_URL"] = "http://apns.example.net:2197"
        let remote = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(remote.status == 78, "\(remote.stdout)")
        #expect(remote.stdout.contains("plain http to apns.example.net"), "\(remote.stdout)")

        env["APNS_PRODUCTION_URL"] = "http://127.0.0.1:2197"
        let local = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(!local.stdout.contains("plain http"), "an emulator on this machine is fine: \(local.stdout)")

        env["APNS_PRODUCTION_URL"] = "https://ops:hunter2@apns.example.net"
        let masked = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(
            !masked.stdout.contains("hunter2") && masked.stdout.contains("***@apns.example.net"), "\(masked.stdout)")
    }

    @Test("a client two hours behind the emulator gets ExpiredProviderToken, as from Apple, not a TLS error")
    func clockBehind() throws {
        // curl under libfaketime is the client whose clock is two hours behind (libfaketime does
        // not suit Swift programs: their arguments do not survive it). Its token was made by its
        // clock, two hours ago: APNs would call it expired.
        let library = "/usr/lib/\(Self.multiarch)/faketime/libfaketime.so.1"
        #expect(FileManager.default.fileExists(atPath: library), "make test installs faketime")
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let token = try ProviderTokenMaker.sign(
            keyPath: setup.key.pkcs8Path, issuedAt: Int(Date().timeIntervalSince1970) - 7200)
        let headers = try setup.directory.write(
            "headers", "authorization: bearer \(token)\napns-topic: \(ProviderSetup.topic)\napns-push-type: alert\n")
        let result = try BuiltTool.runSystem(
            "env",
            [
                "LD_PRELOAD=\(library)", "FAKETIME=-2h", "curl", "-sS", "--http2", "--cacert", emulator.caPath,
                "-H", "@" + headers, "--data-binary", #"{"aps": {"alert": "hi"}}"#, "-w", "\n%{http_code}",
                emulator.baseURL + "/3/device/" + hexToken(1),
            ])
        #expect(result.status == 0, "curl reached the emulator over TLS: \(result.stderr)")
        #expect(result.stdout.contains("ExpiredProviderToken") && result.stdout.hasSuffix("403"), "\(result.stdout)")
    }

    static var multiarch: String {
        #if arch(arm64)
        "aarch64-linux-gnu"
        #else
        "x86_64-linux-gnu"
        #endif
    }
}
