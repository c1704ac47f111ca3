#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary file `PosixFile.replaceAtomically(_:mode:writing:)` fills: unbuffered `write(2)`s,
/// so callers hand it large chunks.
package struct FileOutput {
    private let descriptor: Int32
    /// The temporary file's path, for error messages.
    package let path: String

    /// Writes to `descriptor`, which stays the caller's to close; `path` names it in errors.
    package init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Writes all of `bytes`, retrying short and interrupted writes.
    package mutating func write(_ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Darwin)
            let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
            #else
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("cannot write", path: path, errno: errno)
            }
            offset += written
        }
    }

    /// Writes all of `bytes`.
    package mutating func write(_ bytes: [UInt8]) throws(FileSystemError) {
        let result: Result<Void, FileSystemError> = bytes.withUnsafeBytes { buffer in
            do throws(FileSystemError) {
                return .success(try write(buffer))
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
