import PushKitFreeCore

/// Where `register-apns serve` listens: `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` (loopback).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    /// The default: loopback, port 8100.
    public static let `default` = ListenAddress(host: "127.0.0.1", port: 8100)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `--listen`.
    /// - Throws: `ConfigurationError` (64) naming what is wrong.
    public init(parsing text: String) throws(ConfigurationError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ConfigurationError("--listen \(text): expected [IPv6]:PORT, e.g. [::1]:8100", exitStatus: .usage)
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw ConfigurationError(
                    "--listen \(text): expected HOST:PORT, e.g. 127.0.0.1:8100 or 0.0.0.0:8100", exitStatus: .usage)
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw ConfigurationError("--listen \(text): the port must be a number from 0 to 65535", exitStatus: .usage)
        }
        self.host = host.isEmpty ? "127.0.0.1" : String(host)
        self.port = port
    }

    /// Whether only this machine can connect: 127.0.0.0/8, ::1 or localhost.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" || host.hasPrefix("127.")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
