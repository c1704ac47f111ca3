import Foundation
import Testing

/// A real HTTP proxy (Debian's `tinyproxy`) on a free loopback port, in the foreground, with a
/// config file and log of its own; terminated when this object goes away.
///
/// By default the config allows CONNECT to every port (no `ConnectPort` line), so clients can
/// tunnel to the emulator. It never uses the system tinyproxy's port 8888 or config.
final class RunningTinyproxy {
    let process: Process
    let port: Int
    let logPath: String
    private let directory: TemporaryDirectory

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// - Parameter connectPorts: when given, the only ports CONNECT may reach (tinyproxy answers
    ///   403 for the others).
    init(connectPorts: [Int] = [], timeout: TimeInterval = 10) throws {
        directory = try TemporaryDirectory()
        logPath = directory.file("tinyproxy.log")
        var attempt = 0
        while true {
            // A port that was free a moment ago; another process may take it first, so retry.
            let candidate = try LoopbackPort.unused()
            let config = try directory.write(
                "tinyproxy.conf",
                """
                Port \(candidate)
                Listen 127.0.0.1
                Timeout 30
                MaxClients 20
                Allow 127.0.0.1
                LogFile "\(logPath)"
                LogLevel Connect
                """ + connectPorts.map { "\nConnectPort \($0)" }.joined(), mode: 0o644)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["tinyproxy", "-d", "-c", config]
            process.environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(
                forWritingTo: URL(fileURLWithPath: try directory.write("stdout", "")))
            process.standardError = try FileHandle(
                forWritingTo: URL(fileURLWithPath: try directory.write("stderr", "")))
            try process.run()

            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning, !LoopbackPort.accepts(candidate), Date() < deadline { usleep(10_000) }
            if process.isRunning, LoopbackPort.accepts(candidate) {
                self.process = process
                port = candidate
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            attempt += 1
            if attempt == 3 {
                throw LoopbackSetupError(
                    message:
                        "tinyproxy did not start: \((try? directory.read("stderr")) ?? "") \((try? directory.read("tinyproxy.log")) ?? "")"
                )
            }
        }
    }

    deinit {
        process.stop(grace: 5)
    }

    /// Everything tinyproxy logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The targets of the CONNECT requests logged so far (`127.0.0.1:PORT`), in order.
    var connectTargets: [String] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "): CONNECT ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    /// Polls until at least `count` CONNECT requests are logged or `timeout` passes.
    func waitForConnects(_ count: Int, timeout: TimeInterval = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var current = connectTargets
        while current.count < count, Date() < deadline {
            usleep(10_000)
            current = connectTargets
        }
        return current
    }
}

/// Loopback TCP ports for tests.
enum LoopbackPort {
    /// A port nothing listens on right now, found by binding port 0 and closing.
    static func unused() throws -> Int {
        let socket = try BoundSocket()
        return socket.port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A TCP socket bound to a loopback port but not listening: connections to the port are refused
/// for as long as the object lives, and no other process can take the port meanwhile.
final class BoundSocket {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackPort.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard fd >= 0, bound == 0, named == 0 else {
            if fd >= 0 { close(fd) }
            throw LoopbackSetupError(message: "cannot bind a loopback port: errno \(errno)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}

struct LoopbackSetupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
