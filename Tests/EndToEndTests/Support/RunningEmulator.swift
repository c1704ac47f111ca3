import Foundation
import Testing

/// A provider key made by openssl plus the ids and an isolated HOME: what both the emulator (to
/// trust) and the clients under test (to sign) need. `environment` is ready for `BuiltTool.run`
/// and `RunningEmulator`.
struct ProviderSetup {
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM678901"
    static let topic = "com.example.app"

    let directory: TemporaryDirectory
    let key: OpenSSLKey
    let environment: [String: String]

    init(directory: TemporaryDirectory? = nil) throws {
        let directory = try directory ?? TemporaryDirectory()
        self.directory = directory
        key = try OpenSSLKey(in: directory)
        environment = [
            "HOME": directory.file("home"),
            "APNS_KEY_ID": Self.keyID,
            "APNS_TEAM_ID": Self.teamID,
            "APNS_KEY_PATH": key.pkcs8Path,
            "APNS_TOPIC": Self.topic,
        ]
    }

    /// The registry the suites that register devices share: `state/devices.json` in the directory.
    var stateFile: String { directory.file("state/devices.json") }

    /// The clients' environment with `emulator` standing in for APNs and `stateFile` as the registry.
    func clients(of emulator: RunningEmulator) -> [String: String] {
        var environment = self.environment
        environment["APNS_STATE_FILE"] = stateFile
        return emulator.asAPNs(for: environment)
    }

    /// The directory, key and environment without `APNS_TOPIC`, for tests that decide about the
    /// topic themselves (`apns-jwt`, which needs none).
    func withoutTopic() -> (TemporaryDirectory, OpenSSLKey, [String: String]) {
        var environment = self.environment
        environment["APNS_TOPIC"] = nil
        return (directory, key, environment)
    }

    /// A fresh provider token from the built `apns-jwt` (cached in this setup's HOME).
    func token() throws -> String {
        let result = try BuiltTool.run("apns-jwt", [], environment: environment)
        result.expectSuccess()
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The built `apns-emulator`, started on a free port and terminated when this object goes away.
///
/// Standard output and error go to files (never a pipe that could fill up). `init` polls standard
/// output for the `listening on https://127.0.0.1:PORT (ca: PATH)` line and returns once it is
/// there, so the emulator is accepting connections.
final class RunningEmulator {
    let process: Process
    let port: Int
    /// The channel management listener's port, when started with `--manage-port`.
    let managementPort: Int?
    /// The CA file the emulator printed (pass it to clients as `--cacert`).
    let caPath: String
    let stdoutPath: String
    let stderrPath: String
    /// Where the records go: the `--record` file when given, else standard output.
    let recordPath: String
    private let ownedDirectory: TemporaryDirectory

    /// `https://127.0.0.1:PORT`.
    var baseURL: String { "https://127.0.0.1:\(port)" }
    /// `http://127.0.0.1:PORT`, for HTTP/2 with prior knowledge.
    var plainURL: String { "http://127.0.0.1:\(port)" }

    /// - Parameters:
    ///   - arguments: extra arguments after `--port 0` (a later `--port` wins).
    ///   - environment: the emulator's whole environment besides PATH (use `ProviderSetup`).
    init(_ arguments: [String] = [], environment: [String: String], timeout: TimeInterval = 30) throws {
        ownedDirectory = try TemporaryDirectory()
        stdoutPath = ownedDirectory.file("stdout")
        stderrPath = ownedDirectory.file("stderr")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        if let index = arguments.firstIndex(of: "--record"), index + 1 < arguments.count, arguments[index + 1] != "-" {
            recordPath = arguments[index + 1]
        } else {
            recordPath = stdoutPath
        }

        process = BuiltTool.process("apns-emulator", ["--port", "0"] + arguments, environment: environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()

        let found: [String]
        do {
            found = try process.waitForLine(
                #"^listening on https://[^ ]+:(\d+) \(ca: (.+)\)$"#, in: stdoutPath, timeout: timeout)
        } catch let error as Process.StartError {
            let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            throw EmulatorStartError(message: "apns-emulator did not start (exit \(error.status)): \(stderr)")
        }
        (port, caPath) = (Int(found[0]) ?? 0, found[1])
        // Printed before the `listening on` line, so it is there once that line is.
        let output = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        managementPort = output.split(separator: "\n").first { $0.hasPrefix("channel management on https://") }
            .flatMap { line in line.split(separator: " ")[3].split(separator: ":").last.flatMap { Int($0) } }
    }

    /// `https://127.0.0.1:PORT` of the channel management listener; `nil` without `--manage-port`.
    var managementURL: String? { managementPort.map { "https://127.0.0.1:\($0)" } }

    deinit {
        terminate()
    }

    /// `environment` with this emulator standing in for APNs in both environments, its CA trusted.
    func asAPNs(for environment: [String: String]) -> [String: String] {
        var env = environment
        env["APNS_PRODUCTION_URL"] = baseURL
        env["APNS_SANDBOX_URL"] = baseURL
        env["APNS_CA_FILE"] = caPath
        if let managementURL {
            env["APNS_PRODUCTION_MANAGE_URL"] = managementURL
            env["APNS_SANDBOX_MANAGE_URL"] = managementURL
        }
        return env
    }

    /// Sends `signal` (SIGTERM by default), waits up to 10 seconds, then kills; returns the exit status.
    @discardableResult
    func terminate(signal number: Int32 = SIGTERM) -> Int32 {
        process.stop(signal: number)
    }

    /// Everything the emulator wrote to standard output so far.
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// Everything the emulator wrote to standard error so far.
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The request records written so far, parsed (the `listening on` line is skipped).
    func records() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// Polls until at least `count` records exist (records are written before the answer is sent,
    /// so this normally returns at once) or `timeout` passes.
    func waitForRecords(_ count: Int, timeout: TimeInterval = 10) -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        var current = records()
        while current.count < count, Date() < deadline {
            usleep(10_000)
            current = records()
        }
        return current
    }
}

struct EmulatorStartError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// One answer as the `curl` command line saw it.
struct CurlResponse {
    /// The HTTP status; 0 when there was none (connection failed).
    let status: Int
    /// "2" for HTTP/2.
    let httpVersion: String
    /// Response headers by lowercase name.
    let headers: [String: String]
    let body: String
    let exitCode: Int32
    let stderr: String
    /// curl's `%{time_total}`, seconds.
    let totalTime: Double

    /// The body parsed as a JSON object.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    var reason: String? { json?["reason"] as? String }
}

/// Drives HTTP/2 requests with the `curl` command line (libcurl with nghttp2): an independent client.
enum Curl {
    /// Sends one request.
    /// - Parameters:
    ///   - url: the full URL; `http://` URLs use `--http2-prior-knowledge`, `https://` use `--http2`.
    ///   - headers: in order; repeated names are sent repeatedly.
    ///   - body: sent with `--data-binary` when not `nil`.
    ///   - cacert: the CA to verify the server with (verification stays on).
    static func request(
        _ url: String, method: String = "POST", headers: [(String, String)] = [], body: String? = nil,
        cacert: String? = nil, extra: [String] = []
    ) throws -> CurlResponse {
        let directory = try TemporaryDirectory()
        var arguments = [
            "-sS", "-X", method, "-D", directory.file("headers"), "-o", directory.file("body"), "-w",
            "%{http_code} %{http_version} %{time_total}",
        ]
        arguments.append(url.hasPrefix("http://") ? "--http2-prior-knowledge" : "--http2")
        if let cacert { arguments += ["--cacert", cacert] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", "@" + (try directory.write("request", body))] }
        arguments += extra
        arguments.append(url)
        let result = try BuiltTool.runSystem("curl", arguments)
        let summary = result.stdout.split(separator: " ")
        var parsedHeaders: [String: String] = [:]
        for line in ((try? directory.read("headers")) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsedHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return CurlResponse(
            status: summary.first.flatMap { Int($0) } ?? 0,
            httpVersion: summary.count > 1 ? String(summary[1]) : "",
            headers: parsedHeaders,
            body: (try? directory.read("body")) ?? "",
            exitCode: result.status,
            stderr: result.stderr,
            totalTime: summary.count > 2 ? Double(summary[2]) ?? 0 : 0
        )
    }

    /// A push to `emulator`: POST /3/device/<deviceToken> with the usual APNs headers.
    static func push(
        to emulator: RunningEmulator, deviceToken: String, token: String?, topic: String? = ProviderSetup.topic,
        extraHeaders: [(String, String)] = [], body: String? = #"{"aps":{"alert":"Hello"}}"#,
        priorKnowledge: Bool = false, extra: [String] = []
    ) throws -> CurlResponse {
        var headers: [(String, String)] = []
        if let token { headers.append(("authorization", "bearer \(token)")) }
        if let topic { headers.append(("apns-topic", topic)) }
        headers += extraHeaders
        let base = priorKnowledge ? emulator.plainURL : emulator.baseURL
        return try request(
            base + "/3/device/" + deviceToken, headers: headers, body: body,
            cacert: priorKnowledge ? nil : emulator.caPath, extra: extra)
    }
}
