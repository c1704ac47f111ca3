#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The secret every caller of `register-apns serve` presents, read from a file only its owner can
/// read, and compared in constant time.
package struct SharedSecret: Sendable {
    private let digest: [UInt8]
    /// The hex SHA-256 of the secret: what `/triggerReplyFinished` puts in `server_key`, because the
    /// proxy-chat app finds the server a notification came from by hashing each secret it stores and
    /// comparing. Anyone who sees a payload can hash guesses the same way, so it is given only for a
    /// secret of at least `serverKeyMinimumLength` characters (`openssl rand -hex 32` makes 64, the
    /// app 44), which cannot be guessed; `nil` for a shorter one. It is never accepted as the secret.
    package let serverKey: String?
    /// The shortest secret whose SHA-256 is put in notifications.
    package static let serverKeyMinimumLength = 32

    /// A secret from its text (tests, and the file's contents).
    /// - Throws: `ConfigurationError` (78) when it is empty, only whitespace, or begins or ends with
    ///   whitespace: a header's value is read without the whitespace around it, so such a secret
    ///   could never be presented.
    package init(_ secret: String, source: String = "the secret") throws(ConfigurationError) {
        guard !secret.isEmpty else { throw ConfigurationError("\(source) is empty") }
        guard !secret.trimmingWhitespace.isEmpty else {
            throw ConfigurationError("\(source) holds only whitespace; make a secret with openssl rand -hex 32")
        }
        guard secret.trimmingWhitespace == secret else {
            throw ConfigurationError(
                "\(source): the secret begins or ends with whitespace, which no request can present "
                    + "(a header's value is read without it); remove it")
        }
        let hash = HexDigest.sha256(secret)
        serverKey = secret.count >= Self.serverKeyMinimumLength ? hash : nil
        digest = Array(hash.utf8)
    }

    /// Reads the secret from `path`: the file's text without its trailing line ends (`\n`, or a
    /// Windows editor's `\r\n`).
    /// - Throws: `ConfigurationError` (78) when the file is missing, unreadable, empty, or readable
    ///   or writable by group or others (`chmod 600` fixes that).
    package static func load(path: String) throws(ConfigurationError) -> SharedSecret {
        guard PosixFile.permissions(of: path) != nil else {
            throw ConfigurationError("--secret-file \(path) does not exist or cannot be read")
        }
        if let mode = PosixFile.permissionsOpenToOthers(of: path) {
            throw ConfigurationError(
                "--secret-file \(path) is accessible by group or others (mode \(String(mode, radix: 8))); run chmod 600 \(path)"
            )
        }
        let data: Data
        do {
            guard let read = try PosixFile.readRegularFile(path, limit: 4096) else {
                throw ConfigurationError("--secret-file \(path) does not exist")
            }
            data = read
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("--secret-file \(path) cannot be read: \(error)")
        }
        var text = String(decoding: data, as: UTF8.self)
        // "\r\n" is one Character: compare scalars, so that a CRLF file is read as its secret.
        while let last = text.unicodeScalars.last, last == "\n" || last == "\r" { text.unicodeScalars.removeLast() }
        return try SharedSecret(text, source: "--secret-file \(path)")
    }

    /// Whether `presented` is the secret. Both sides are hashed first, so the comparison always
    /// looks at 64 bytes whatever was presented, and it reads every byte whether or not an earlier
    /// one differed: the time taken says nothing about the secret.
    package func matches(_ presented: String) -> Bool {
        let other = Array(HexDigest.sha256(presented).utf8)
        var difference: UInt8 = 0
        for index in digest.indices { difference |= digest[index] ^ other[index] }
        return difference == 0
    }

    /// The secret a request presents: `Authorization: Bearer <secret>` or `X-OpenClaw-Auth: <secret>`;
    /// with `acceptingBasic`, also `Authorization: Basic <base64 of user:secret>`, whatever the user
    /// name (what ntfy's and Bark's clients send for a URL such as `ntfy://user:SECRET@host/topic`).
    package static func presented(
        authorization: String?, openClawAuth: String?, acceptingBasic: Bool = false
    ) -> String? {
        if let authorization {
            let parts = authorization.trimmingWhitespace.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return String(parts[1]).trimmingWhitespace
            }
            if acceptingBasic, parts.count == 2, parts[0].lowercased() == "basic",
                let password = basicPassword(String(parts[1]).trimmingWhitespace)
            {
                return password
            }
        }
        return openClawAuth?.trimmingWhitespace
    }

    /// The password of HTTP Basic credentials (RFC 7617): what follows the first `:` of the
    /// base64-decoded `user:password`; `nil` when the text is not base64 or has no `:`.
    static func basicPassword(_ credentials: String) -> String? {
        guard let data = Data(base64Encoded: credentials), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return String(text[text.index(after: colon)...])
    }

}
