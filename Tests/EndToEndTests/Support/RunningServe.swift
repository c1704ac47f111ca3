import Foundation
import Testing

/// The built `register-apns serve` (through `register-apns`, so the hand-over to
/// `register-apns-serve` is exercised too), started on a free loopback port and stopped when this
/// object goes away.
///
/// Standard output and error go to files. `init` polls standard error for the
/// `listening on http://127.0.0.1:PORT` line and returns once the server accepts connections.
final class RunningServe {
    let process: Process
    let port: Int
    let scheme: String
    let stdoutPath: String
    let stderrPath: String
    private let ownedDirectory: TemporaryDirectory

    /// `http://127.0.0.1:PORT` (https with `--tls-cert`).
    var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    /// - Parameters:
    ///   - arguments: after `serve --listen 127.0.0.1:0` (a later `--listen` wins), e.g.
    ///     `["--no-auth", "--state-file", path]`.
    ///   - environment: the server's whole environment besides PATH (use `ProviderSetup`).
    ///   - limits: `ulimit` commands run before the server by `bash -c '<limits> && exec ...'`, e.g.
    ///     `ulimit -n 1024` for a soft and hard open-file limit of 1,024.
    init(
        _ arguments: [String], environment: [String: String], timeout: TimeInterval = 30, limits: String? = nil
    ) throws {
        ownedDirectory = try TemporaryDirectory()
        stdoutPath = ownedDirectory.file("stdout")
        stderrPath = ownedDirectory.file("stderr")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = BuiltTool.process(
            "register-apns", ["serve", "--listen", "127.0.0.1:0"] + arguments, environment: environment)
        if let limits, let tool = process.executableURL?.path {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "\(limits) && exec \"$0\" \"$@\"", tool] + (process.arguments ?? [])
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()

        // The server reports where it listens on standard error.
        let found: [String]
        do {
            found = try process.waitForLine(#"listening on (https?)://[^ ]+:(\d+)$"#, in: stderrPath, timeout: timeout)
        } catch let error as Process.StartError {
            throw ServeStartError(status: error.status, stderr: error.output)
        }
        scheme = found[0]
        port = Int(found[1]) ?? 0
    }

    deinit {
        process.stop()
    }

    /// Sends `signal` (SIGTERM by default), waits up to 10 seconds, then kills; returns the exit status.
    @discardableResult
    func terminate(signal number: Int32 = SIGTERM) -> Int32 {
        process.stop(signal: number)
    }

    /// Everything the server wrote to standard error so far (the access log among it).
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    /// Why the server ended by itself, for a test's message: from the runtime's crash report
    /// (`Fatal error`, `Program crashed`) through its first frames, or the end of standard error when
    /// there is none.
    var crashReport: String {
        let text = stderr
        let start = ["Fatal error", "Program crashed", "💣"].compactMap { text.range(of: $0)?.lowerBound }.min()
        guard let start else { return String(text.suffix(800)) }
        return String(text[start...].prefix(3_000))
    }
    /// Everything the server wrote to standard output so far (nothing, normally).
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// One request through `curl`, a client nobody here wrote.
    @discardableResult
    func request(
        _ method: String, _ path: String, json: String? = nil, body: Data? = nil, headers: [String: String] = [:],
        caFile: String? = nil
    ) throws -> HTTPExchange {
        try HTTPExchange.curl(
            method, baseURL + path, body: body ?? json.map { Data($0.utf8) }, headers: headers, caFile: caFile)
    }
}

struct ServeStartError: Error, CustomStringConvertible {
    let status: Int32
    let stderr: String
    var description: String { "register-apns serve did not start (exit \(status)): \(stderr)" }
}

/// One HTTP request and its answer, as curl saw them.
struct HTTPExchange {
    let method: String
    let path: String
    let status: Int
    /// Lowercased names.
    let headers: [String: String]
    let body: String

    /// The body as a JSON object (nil when it is not one).
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
    /// `json["error"]`.
    var error: String? { json?["error"] as? String }

    /// The exchange as `Tests/Tools/check_openapi.py` reads it (one JSON object per line).
    var record: [String: Any] {
        [
            "method": method, "path": path, "status": status, "content_type": headers["content-type"] ?? "",
            "body": body, "headers": headers,
        ]
    }

    /// Runs `curl -i` (no `Expect: 100-continue`) and parses the status line, headers and body.
    /// `HEAD` is sent as `curl --head`, which reads no body whatever `Content-Length` says.
    static func curl(
        _ method: String, _ url: String, body: Data?, headers: [String: String] = [:], caFile: String? = nil
    ) throws -> HTTPExchange {
        var arguments = ["-sS", "-i", "--max-time", "30", "-H", "Expect:"]
        arguments += method == "HEAD" ? ["--head"] : ["-X", method]
        if let caFile { arguments += ["--cacert", caFile] }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if body != nil { arguments += ["--data-binary", "@-"] }
        arguments.append(url)
        let result = try BuiltTool.runSystem("curl", arguments, stdin: body ?? Data())
        guard result.status == 0 else { throw CurlFailure(status: result.status, stderr: result.stderr) }
        let text = result.stdout
        guard let split = text.range(of: "\r\n\r\n") else {
            throw CurlFailure(status: 0, stderr: "no header block in: \(text)")
        }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let path = URL(string: url).map { $0.path.isEmpty ? "/" : $0.path } ?? url
        return HTTPExchange(
            method: method, path: path, status: status, headers: fields, body: String(text[split.upperBound...]))
    }
}

struct CurlFailure: Error, CustomStringConvertible {
    let status: Int32
    let stderr: String
    var description: String { "curl failed (exit \(status)): \(stderr)" }
}
