#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an input file the user named (a payload, a request body, a key, a certificate, a token
/// list), or standard input for `-`, with the errors every tool gives for it.
package enum InputFile {
    /// - Parameters:
    ///   - path: the file, or `-` for standard input.
    ///   - name: how messages name it, e.g. `--payload-file /tmp/p.json` or
    ///     `key file /k.p8 (from APNS_KEY_PATH)`.
    /// - Throws: `InputFileError` (exit 66) when the file is missing or cannot be read.
    package static func read(_ path: String, named name: String) throws(InputFileError) -> Data {
        if path == "-" { return FileDescriptorInput.readAll() }
        let data: Data?
        do {
            data = try PosixFile.readIfPresent(path)
        } catch {
            throw InputFileError(message: "cannot read \(name): \(error.reason)")
        }
        guard let data else { throw InputFileError(message: "\(name) does not exist") }
        return data
    }
}

/// An input file that is missing or unreadable (exit 66, `EX_NOINPUT`).
package struct InputFileError: PushKitError {
    /// What failed, naming the file as the caller named it.
    package let message: String
    /// Always 66 (`EX_NOINPUT`).
    package var exitStatus: ExitStatus { .noInput }
    /// The message.
    package var description: String { message }
}
