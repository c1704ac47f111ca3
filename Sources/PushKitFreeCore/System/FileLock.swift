#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a lock file, serializing writers across processes.
///
/// The lock file is created 0600 and never removed: removing it would let two processes lock two
/// different inodes. The kernel releases the lock when the process exits, even after `SIGKILL`.
package final class FileLock {
    private let descriptor: Int32
    /// The lock file's path.
    package let path: String

    /// Opens (creating if needed) `path` and blocks until the exclusive lock is held.
    package init(exclusiveAt path: String) throws(FileSystemError) {
        self.path = path
        // Not through a symbolic link: another user able to plant one would choose what is created.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            throw FileSystemError("cannot open lock file", path: path, errno: errno, exitStatus: .cannotCreate)
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(descriptor)
            throw FileSystemError("cannot lock", path: path, errno: code)
        }
        self.descriptor = descriptor
    }

    /// The line the lock file holds (see `record(_:)`), without its newline; `nil` when it holds none.
    package func recordedLine() -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, 0) }
        guard count > 0, let end = buffer[..<count].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(decoding: buffer[..<end], as: UTF8.self)
    }

    /// Makes the lock file hold `line` (under 256 bytes, no newline): what a writer wants the next
    /// one to know. Best effort and not synced: the next holder must not depend on it.
    package func record(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        guard recordedLine() != line else { return }
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, 0) }
        _ = ftruncate(descriptor, off_t(bytes.count))
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Runs `body` while holding the exclusive lock on `path`.
    package static func withExclusiveLock<T, E: Error>(at path: String, _ body: () throws(E) -> T) throws -> T {
        let lock = try FileLock(exclusiveAt: path)
        return try withExtendedLifetime(lock) { () throws(E) -> T in try body() }
    }

    /// The exclusive lock of a cache file in the state directory (`path` plus `.lock`), after making
    /// the file's directory (private) when it is missing: how the caches shared by processes
    /// (`ProviderTokenCache`, `FCMAccessTokenCache`) serialize their writers.
    package static func forCache(at path: String) throws(FileSystemError) -> FileLock {
        let directory = PosixFile.parentDirectory(of: path)
        if !directory.isEmpty { try PosixFile.createPrivateDirectory(directory) }
        return try FileLock(exclusiveAt: path + ".lock")
    }
}
