#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an input file the user named (a payload, a request body, a key, a certificate, a token
/// list), or standard input for `-`, with the errors every tool gives for it.
///
/// Every read has a limit: a file, pipe or device (`/dev/zero`) that gives more is refused once
/// the limit is passed, with no more than the limit read into memory.
package enum InputFile {
    /// - Parameters:
    ///   - path: the file, or `-` for standard input. A pipe or a device is read like a file.
    ///   - name: how messages name it, e.g. `--payload-file /tmp/p.json` or
    ///     `key file /k.p8 (from APNS_KEY_PATH)`.
    ///   - limit: the most bytes it may hold (one of the limits below, or the caller's own).
    /// - Throws: `InputFileError`: 66 when the file is missing or cannot be read, 65 when it holds
    ///   more than `limit` bytes.
    package static func read(_ path: String, named name: String, limit: Int) throws(InputFileError) -> Data {
        let descriptor: Int32
        if path == "-" {
            descriptor = 0
        } else {
            let opened: Int32?
            do {
                opened = try PosixFile.openIfPresent(path, action: "cannot read")
            } catch {
                throw InputFileError(message: "cannot read \(name): \(error.reason)")
            }
            guard let opened else { throw InputFileError(message: "\(name) does not exist") }
            descriptor = opened
        }
        defer { if descriptor != 0 { close(descriptor) } }
        // A regular file says its size: one over the limit is refused without reading it.
        var info = stat()
        let size = fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        if size > limit { throw tooLarge(name, limit: limit) }
        let data: Data
        do {
            data = try PosixFile.read(descriptor, atMost: limit + 1, path: path, capacity: size + 1)
        } catch {
            throw InputFileError(message: "cannot read \(name): \(error.reason)")
        }
        guard data.count <= limit else { throw tooLarge(name, limit: limit) }
        return data
    }

    /// The refusal of an input over its limit (65), naming it and the limit.
    static func tooLarge(_ name: String, limit: Int) -> InputFileError {
        InputFileError(
            message: "\(name) is larger than \(describe(bytes: limit)), the most it may hold", exitStatus: .dataError)
    }

    /// `limit` in words: `64 KiB (65536 bytes)`, or `100 bytes` below a KiB.
    static func describe(bytes limit: Int) -> String {
        let units = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        guard let (size, unit) = units.first(where: { limit >= $0.0 && limit % $0.0 == 0 }) else {
            return "\(limit) bytes"
        }
        return "\(limit / size) \(unit) (\(limit) bytes)"
    }

    /// A complete payload (`send-push --payload-file`): 64 KiB. APNs takes at most 4096 bytes (5120
    /// for VoIP) and the file is sent as it is, so no larger file can be sent; the margin is for a
    /// simulator `.apns` file, pretty-printed, whose bundle member is dropped before sending.
    package static let payloadLimit = 64 << 10

    /// Text for a notification read from standard input (`send-push --body -`): 1 MiB. A body is
    /// cut to fit APNs' 4096 bytes, so this is far more than is ever shown, and room for a log or
    /// a reply piped in whole; longer text is refused rather than read without end.
    package static let textLimit = 1 << 20

    /// Registration bodies (`register-apns add --from-json`) and registries to import
    /// (`register-apns import`): 64 MiB, about 190,000 devices at the 340 bytes a device takes in
    /// the state file, and some 300 MiB of memory while they are read. More devices are imported
    /// in parts, as an import merges; an SQLite database is read by SQLite and has no limit.
    package static let registryLimit = 64 << 20

    /// A key or a token (`register-apns add --content-key-file`, `apns-jwt decode -`): 4 KiB, as for
    /// `register-apns serve --secret-file`; a content key is 44 characters of base64.
    package static let keyLimit = 4 << 10
}

/// An input file that is missing or unreadable (exit 66, `EX_NOINPUT`), or larger than it may be
/// (exit 65, `EX_DATAERR`).
package struct InputFileError: PushKitError {
    /// What failed, naming the file as the caller named it.
    package let message: String
    /// 66 (`EX_NOINPUT`) unless given otherwise.
    package var exitStatus: ExitStatus = .noInput
    /// The message.
    package var description: String { message }
}
