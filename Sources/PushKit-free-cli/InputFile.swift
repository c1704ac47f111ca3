import PushKitFreeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a file named on the command line, or standard input for `-`.
public enum InputFile {
    /// - Throws: `InputFileError` (66) naming the flag when the file is missing or unreadable.
    public static func read(_ path: String, flag: String) throws -> Data {
        if path == "-" { return FileDescriptorInput.readAll() }
        do {
            guard let data = try PosixFile.readIfPresent(path) else {
                throw InputFileError(message: "\(flag) \(path) does not exist")
            }
            return data
        } catch let error as FileSystemError {
            throw InputFileError(message: "cannot read \(flag) \(path): \(error.reason)")
        }
    }
}

/// Standard input as text.
public enum StandardInputText {
    /// All of standard input as UTF-8 text, without the trailing line breaks a shell pipeline adds.
    public static func read(trimmingTrailingNewlines: Bool) -> String {
        var text = String(decoding: FileDescriptorInput.readAll(), as: UTF8.self)
        if trimmingTrailingNewlines {
            while let last = text.last, last.isNewline { text.removeLast() }
        }
        return text
    }
}

/// A file named by a flag that cannot be read (exit 66).
public struct InputFileError: PushKitError {
    public let message: String
    public var exitStatus: ExitStatus { .noInput }
    public var description: String { message }
}
