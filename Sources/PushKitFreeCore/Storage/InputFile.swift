#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an input file the user named (a payload, a request body, a key, a certificate, a token
/// list), or standard input for `-`, with the errors every tool gives for it.
public enum InputFile {
    /// - Parameters:
    ///   - path: the file, or `-` for standard input.
    ///   - name: how messages name it, e.g. `--payload-file /tmp/p.json` or
    ///     `key file /k.p8 (from APNS_KEY_PATH)`.
    /// - Throws: `InputFileError` (exit 66) when the file is missing or cannot be read.
    public static func read(_ path: String, named name: String) throws(InputFileError) -> Data {
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

/// Standard input as text.
public enum StandardInputText {
    /// All of standard input as UTF-8 text, without the trailing line breaks a shell pipeline adds.
    /// - Parameter hook: read only what is there without waiting on a quiet pipe or a terminal
    ///   (see `FileDescriptorInput.readAvailable`), as a hook must never hang its caller.
    public static func read(trimmingTrailingNewlines: Bool, hook: Bool = false) -> String {
        var text = String(
            decoding: hook ? FileDescriptorInput.readAvailable() : FileDescriptorInput.readAll(), as: UTF8.self)
        if trimmingTrailingNewlines {
            while let last = text.last, last.isNewline { text.removeLast() }
        }
        return text
    }
}

/// An input file that is missing or unreadable (exit 66, `EX_NOINPUT`).
public struct InputFileError: PushKitError {
    public let message: String
    public var exitStatus: ExitStatus { .noInput }
    public var description: String { message }
}
