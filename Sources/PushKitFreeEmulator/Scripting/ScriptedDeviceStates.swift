import PushKitFreeCore

/// Device tokens the emulator answers as Apple answers tokens that no longer work: `410 Unregistered`
/// (the app was removed; with the time it was marked), `410 ExpiredToken` (the token expired; with
/// the time it was marked) or `400 BadDeviceToken` (a token of the other environment). Tokens
/// compare case-insensitively.
package struct ScriptedDeviceStates: Sendable, Equatable {
    /// Unregistered tokens (lowercase) and when each was marked, in milliseconds since 1970.
    package private(set) var unregistered: [String: Int64] = [:]
    /// Tokens (lowercase) that belong to the other environment.
    package private(set) var wrongEnvironment: Set<String> = []
    /// Expired tokens (lowercase) and when each was marked, in milliseconds since 1970.
    package private(set) var expired: [String: Int64] = [:]

    /// No token in any state.
    package init() {}

    /// Whether no token has a scripted state (the common case, checked first on the hot path).
    package var isEmpty: Bool { unregistered.isEmpty && wrongEnvironment.isEmpty && expired.isEmpty }

    /// Marks `token` unregistered since `timestamp` (milliseconds since 1970).
    package mutating func unregister(_ token: String, at timestamp: Int64) {
        unregistered[token.lowercased()] = timestamp
    }

    /// Marks `token` expired since `timestamp` (milliseconds since 1970).
    package mutating func expire(_ token: String, at timestamp: Int64) {
        expired[token.lowercased()] = timestamp
    }

    /// Marks `token` as one of the other environment.
    package mutating func markWrongEnvironment(_ token: String) {
        wrongEnvironment.insert(token.lowercased())
    }

    /// Clears any state of `token`, as when the app registers again; returns whether it had one.
    @discardableResult
    package mutating func register(_ token: String) -> Bool {
        let key = token.lowercased()
        let hadState = unregistered.removeValue(forKey: key) != nil || expired.removeValue(forKey: key) != nil
        return wrongEnvironment.remove(key) != nil || hadState
    }

    /// Apple's answer for `token`, with the 410 timestamp; `nil` when the token has no state.
    package func answer(for token: String) -> (rejection: APNsRejection, timestamp: Int64?)? {
        if isEmpty { return nil }
        let key = token.lowercased()
        if let timestamp = unregistered[key] { return (APNsRejection(.unregistered), timestamp) }
        if let timestamp = expired[key] { return (APNsRejection(.expiredToken), timestamp) }
        if wrongEnvironment.contains(key) { return (APNsRejection(.badDeviceToken), nil) }
        return nil
    }

    /// Parses an `--unregistered-file`: one hex token per line, optionally followed by the time it
    /// was unregistered in milliseconds since 1970; blank lines and `#` comments are skipped.
    /// - Parameter origin: names the file in errors.
    package static func parseTokenList(
        _ text: String, origin: String
    ) throws(ScriptedDeviceStatesError) -> [(token: String, timestamp: Int64?)] {
        var entries: [(token: String, timestamp: Int64?)] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "," })
            if fields.isEmpty { continue }
            let token = String(fields[0])
            guard APNsRequestValidator.isHexOfEvenLength(token) else {
                throw ScriptedDeviceStatesError("\(origin) line \(number + 1): \"\(token)\" is not a hex device token")
            }
            var timestamp: Int64?
            if fields.count > 1 {
                guard fields.count == 2, let value = Int64(fields[1]), value >= 0 else {
                    throw ScriptedDeviceStatesError(
                        "\(origin) line \(number + 1): expected a token and optionally a time in milliseconds since 1970"
                    )
                }
                timestamp = value
            }
            entries.append((token, timestamp))
        }
        return entries
    }
}

/// A malformed token list (`--unregistered-file`): bad data, exit 65.
package struct ScriptedDeviceStatesError: PushKitError {
    /// The message, naming the file and line.
    package let message: String
    /// Always 65: the file's contents are at fault.
    package var exitStatus: ExitStatus { .dataError }
    /// An error with a short, lowercase message.
    package init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}
