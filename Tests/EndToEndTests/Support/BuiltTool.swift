import Foundation
import Testing

/// The result of running one of the built executables.
struct ToolResult: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs the executables this package builds, the way a shell would.
///
/// The products directory is `PUSHKIT_BIN_DIR` (set by `make test`), else the directory of the test
/// bundle, which `swift test` places next to the executables.
enum BuiltTool {
    static let binDirectory: String = {
        let directory = locateBinDirectory()
        linkTools(in: directory)
        return directory
    }()

    private static func locateBinDirectory() -> String {
        if let dir = ProcessInfo.processInfo.environment["PUSHKIT_BIN_DIR"], !dir.isEmpty { return dir }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On Linux the runner is `<bin>/<package>PackageTests.xctest`; on macOS a bundle inside <bin>.
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("pushkit-free").path), url.path != "/"
        {
            url.deleteLastPathComponent()
        }
        return url.path
    }

    /// tools.list: each tool's name and the program it is a link to, in the list's order.
    static let toolList: [(name: String, program: String)] = {
        let text = (try? String(contentsOfFile: RepositoryFiles.path("tools.list"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 3, !fields[0].hasPrefix("#") else { return nil }
            return (fields[0], fields[1])
        }
    }()

    /// The tools that are the one `pushkit-free` program, called through links named after them.
    static let lightTools = toolList.filter { $0.program == "pushkit-free" }.map(\.name)

    /// The tools that are the one `pushkit-free-server` program, called the same way.
    static let serverTools = toolList.filter { $0.program == "pushkit-free-server" }.map(\.name)

    /// Adds the links `make` adds after a build (`apns-jwt -> pushkit-free`,
    /// `apns-emulator -> pushkit-free-server`, ...) when a plain `swift build` left them out, so the
    /// tests run the programs the way they are installed.
    private static func linkTools(in directory: String) {
        for (program, tools) in [("pushkit-free", lightTools), ("pushkit-free-server", serverTools)] {
            for tool in tools {
                let link = directory + "/" + tool
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == program { continue }
                try? FileManager.default.removeItem(atPath: link)
                try? FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: program)
            }
        }
    }

    static func path(_ tool: String) -> String { binDirectory + "/" + tool }

    /// ASAN_OPTIONS, TSAN_OPTIONS and the like of the test run (`make sanitize` sets them), and
    /// SWIFT_BACKTRACE (`make test` has the runtime write crash reports to a folder it prints after
    /// the run), for the clean environments the tools run in, so a tool writes its reports where they
    /// are looked for.
    static let diagnosticOptions = ProcessInfo.processInfo.environment.filter {
        $0.key.hasSuffix("SAN_OPTIONS") || $0.key == "SWIFT_BACKTRACE"
    }

    /// Keeps the machine's own config files from the tools under test: no system-wide config
    /// (`/etc/pushkit-free/config.json`, `/etc/xdg/pushkit-free/config.json`) unless a test names one.
    static let isolation = ["PUSHKIT_SYSTEM_CONFIG": "", "XDG_CONFIG_DIRS": "/nonexistent/pushkit-free-tests"]

    /// The environment a test's child process gets: `environment`, the isolation above where the
    /// test set nothing else, and the diagnostic options.
    static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.merging(isolation) { own, _ in own }.merging(diagnosticOptions) { _, new in new }
    }

    /// Runs `tool` with `arguments`, a clean environment (`environment` plus PATH), optional stdin,
    /// and waits for it to exit.
    @discardableResult
    static func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
        directory: String? = nil
    ) throws -> ToolResult {
        let process = Self.process(tool, arguments, environment: environment)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        return try capture(process, stdin: stdin)
    }

    /// Runs `tool` like `run`, through `bash -c '<prelude> && exec TOOL ARGUMENTS'`: `ulimit`
    /// settings, or a redirection such as `exec < /dev/zero` for standard input.
    @discardableResult
    static func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:], prelude: String
    ) throws -> ToolResult {
        let process = Self.process(tool, arguments, environment: environment)
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "\(prelude) && exec \"$0\" \"$@\"", path(tool)] + arguments
        return try capture(process, stdin: nil)
    }

    /// A not yet started `tool` with `arguments` and a clean environment: `environment` plus PATH.
    static func process(_ tool: String, _ arguments: [String], environment: [String: String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(tool))
        process.arguments = arguments
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        env.merge(environment) { _, new in new }
        process.environment = childEnvironment(env)
        return process
    }

    /// Runs any program (openssl, curl, python3) found on PATH.
    @discardableResult
    static func runSystem(
        _ program: String, _ arguments: [String], stdin: Data? = nil, directory: String? = nil
    ) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        return try capture(process, stdin: stdin)
    }

    private static func capture(_ process: Process, stdin: Data?) throws -> ToolResult {
        try RunningTool(process, stdin: stdin).wait()
    }

    /// Starts `tool` like `run` does, but returns at once, for tests that race or kill processes.
    static func start(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil
    ) throws -> RunningTool {
        try RunningTool(Self.process(tool, arguments, environment: environment), stdin: stdin)
    }
}

/// A started process whose output goes to files, collected by `wait()`.
final class RunningTool {
    let process: Process
    private let directory: URL
    private let out: FileHandle
    private let err: FileHandle

    init(_ process: Process, stdin: Data?) throws {
        self.process = process
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushkit-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        out = try FileHandle(forWritingTo: outURL)
        err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let inURL = directory.appendingPathComponent("in")
            try stdin.write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// What the process wrote to standard output so far.
    var stdoutSoFar: String {
        String(decoding: (try? Data(contentsOf: directory.appendingPathComponent("out"))) ?? Data(), as: UTF8.self)
    }

    /// Sends `signal` (SIGKILL by default) to the process.
    func kill(_ signal: Int32 = SIGKILL) {
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit and returns its status and output. A process killed by a
    /// signal reports the signal number as its status; see `wasSignaled`.
    func wait() throws -> ToolResult {
        process.waitUntilExit()
        try out.close()
        try err.close()
        return ToolResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: directory.appendingPathComponent("out")), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: directory.appendingPathComponent("err")), as: UTF8.self)
        )
    }

    /// Whether the process ended by a signal rather than by exiting.
    var wasSignaled: Bool { process.terminationReason == .uncaughtSignal }
}

/// A throw-away directory for one test, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pushkit-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let target = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target)
        return target
    }

    func read(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: file(name))), as: UTF8.self)
    }

    /// A self-signed P-256 server certificate for localhost and 127.0.0.1, made by `openssl` (not by
    /// our code), valid two days, written here as `<name>.pem` with its key in `<name>-key.pem`.
    func selfSignedCertificate(named name: String = "server") throws -> (certificate: String, key: String) {
        let certificate = file(name + ".pem"), key = file(name + "-key.pem")
        try BuiltTool.runSystem(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key,
                "-out", certificate,
            ]
        ).expectSuccess()
        return (certificate, key)
    }
}

/// A P-256 key made by `openssl` (not by our code), in the formats the tools accept.
struct OpenSSLKey {
    let pkcs8Path: String
    let sec1Path: String
    let publicKeyPath: String

    init(in directory: TemporaryDirectory, name: String = "key") throws {
        sec1Path = directory.file("\(name)-sec1.pem")
        pkcs8Path = directory.file("\(name).p8")
        publicKeyPath = directory.file("\(name)-public.pem")
        try BuiltTool.runSystem("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", sec1Path])
            .expectSuccess()
        try BuiltTool.runSystem("openssl", ["pkcs8", "-topk8", "-nocrypt", "-in", sec1Path, "-out", pkcs8Path])
            .expectSuccess()
        try BuiltTool.runSystem("openssl", ["ec", "-in", sec1Path, "-pubout", "-out", publicKeyPath]).expectSuccess()
        chmod(pkcs8Path, 0o600)
        chmod(sec1Path, 0o600)
    }
}

extension ToolResult {
    /// Fails the test with the tool's stderr when it did not exit 0.
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "exit \(status): \(stderr)", sourceLocation: sourceLocation)
    }
}

extension Process {
    /// Sends `signal` (SIGTERM by default), waits up to `grace` seconds for an exit, then kills;
    /// returns the exit status. Does nothing but wait when the process has already ended.
    @discardableResult
    func stop(signal number: Int32 = SIGTERM, grace: TimeInterval = 10) -> Int32 {
        if isRunning {
            kill(processIdentifier, number)
            let deadline = Date().addingTimeInterval(grace)
            while isRunning, Date() < deadline { usleep(10_000) }
            if isRunning { kill(processIdentifier, SIGKILL) }
        }
        waitUntilExit()
        return terminationStatus
    }
}

extension Process {
    /// Polls `file` (where this started process writes) until `pattern` matches it, and returns
    /// the match's capture groups. Throws when the process exits or `timeout` passes first, after
    /// killing it, with everything `file` holds.
    func waitForLine(_ pattern: String, in file: String, timeout: TimeInterval) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            if let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                return (1..<match.numberOfRanges).map {
                    Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? ""
                }
            }
            if !isRunning || Date() > deadline {
                if isRunning { kill(processIdentifier, SIGKILL) }
                waitUntilExit()
                throw StartError(status: terminationStatus, output: text)
            }
            usleep(10_000)
        }
    }

    /// A started process that never printed the line it was expected to.
    struct StartError: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "did not start (exit \(status)): \(output)" }
    }
}

/// The hex SHA-256 of `text`, computed by `sha256sum` (not by the code under test).
func sha256Hex(_ text: String) throws -> String {
    let result = try BuiltTool.runSystem("sha256sum", [], stdin: Data(text.utf8))
    result.expectSuccess()
    return String(result.stdout.prefix(64))
}

/// A device token as the tools mask it: the first 8 hex digits, "…", the last 4.
func maskedToken(_ token: String) -> String { "\(token.prefix(8))…\(token.suffix(4))" }

/// `register-apns list --json` output, each device's object by its id; a line that is not a device's
/// object fails the test.
func listedDevices(_ text: String) throws -> [String: [String: Any]] {
    var devices: [String: [String: Any]] = [:]
    for line in text.split(separator: "\n") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        devices[try #require(object["device_id"] as? String)] = object
    }
    return devices
}

/// The JSON objects of JSON Lines `text` (records, `--json` output, push.log); other lines are skipped.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}
