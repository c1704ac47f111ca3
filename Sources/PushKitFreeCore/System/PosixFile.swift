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

/// Small wrappers over the POSIX calls the state files need: reading whole files, creating private
/// directories, and replacing a file atomically.
package enum PosixFile {
    /// Whether a `read` or `write` on `descriptor` that failed with `code` is simply to be tried
    /// again: after EINTR at once, after EAGAIN once `descriptor` is ready for `events` (a
    /// descriptor another process shares may have been made non-blocking). Any other code is a
    /// failure.
    package static func shouldRetry(after code: Int32, on descriptor: Int32, waitingFor events: Int16) -> Bool {
        if code == EINTR { return true }
        guard code == EAGAIN || code == EWOULDBLOCK else { return false }
        var ready = pollfd(fd: descriptor, events: events, revents: 0)
        _ = poll(&ready, 1, -1)
        return true
    }

    /// `strerror(code)` as a Swift string.
    package static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Reads a whole file. Returns `nil` when it does not exist.
    ///
    /// - Parameter mapLargeFiles: map a file over 1 MB into memory (read-only, private) instead of
    ///   copying it: for the device registry, tens of megabytes read on every registration, this
    ///   saves a third of the system time. Only for files that are replaced by `rename`, never
    ///   rewritten in place: truncating a mapped file under a reader kills the reader with SIGBUS.
    /// - Throws: `FileSystemError` for any other failure (permission, a directory, I/O).
    package static func readIfPresent(_ path: String, mapLargeFiles: Bool = false) throws(FileSystemError) -> Data? {
        guard let descriptor = try openIfPresent(path, action: "cannot read") else { return nil }
        defer { close(descriptor) }
        // Read straight into a buffer of the file's size (state files reach tens of megabytes);
        // keep reading past it in case the file grew.
        var info = stat()
        let expected = fstat(descriptor, &info) == 0 ? max(Int(info.st_size), 0) : 0
        if mapLargeFiles, expected > 1 << 20,
            let mapped = mmap(nil, expected, PROT_READ, mapFlags, descriptor, 0), mapped != MAP_FAILED
        {
            return Data(bytesNoCopy: mapped, count: expected, deallocator: .unmap)
        }
        return try contents(ofOpen: descriptor, path: path, capacity: expected + 64 * 1024)
    }

    /// Reads a small file that must be a regular file: a key, a secret, a config or CA file. A
    /// FIFO, a device (`/dev/zero`), a socket or a directory is refused without reading (opened
    /// non-blocking, so a FIFO nobody writes to does not hang), and so is a file over `limit` bytes.
    /// - Returns: the contents; `nil` when there is no such file.
    /// - Throws: `FileSystemError` naming what the file is, or how large.
    package static func readRegularFile(_ path: String, limit: Int) throws(FileSystemError) -> Data? {
        guard let descriptor = try openIfPresent(path, action: "cannot read", flags: O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError("cannot read", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileSystemError(
                refusing: "not a regular file (a pipe, a device or a directory)", path: path, action: "cannot read")
        }
        guard Int(info.st_size) <= limit else {
            throw FileSystemError(
                refusing: "\(info.st_size) bytes, more than such a file holds (at most \(limit))", path: path,
                action: "cannot read")
        }
        let data = try read(descriptor, atMost: limit + 1, path: path, capacity: Int(info.st_size) + 1)
        guard data.count <= limit else {
            throw FileSystemError(refusing: "grew past \(limit) bytes while read", path: path, action: "cannot read")
        }
        return data
    }

    /// Reads the open `descriptor` with `read(2)`, from its position on, until its end or until
    /// `count` bytes came, whichever is first: memory never holds more than `count` bytes, however
    /// much a device (`/dev/zero`) or a pipe would give. To hold a file to a limit, read one byte
    /// more than the limit: getting that byte means the file is larger.
    ///
    /// A descriptor left non-blocking by another program (a pipe shared with a parent) is waited
    /// on with `poll`, so `EAGAIN` never passes for the end.
    /// - Parameter capacity: the buffer to start with (a regular file's size, when known); it
    ///   doubles as it fills, never past `count`.
    /// - Throws: `FileSystemError` naming `path` when `read` fails.
    package static func read(
        _ descriptor: Int32, atMost count: Int, path: String, capacity: Int = 64 * 1024
    ) throws(FileSystemError) -> Data {
        var data = Data(count: min(max(capacity, 1), max(count, 0)))
        var length = 0
        while length < count {
            if length == data.count { data.count = min(data.count * 2, count) }
            let got = data.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress! + length, buffer.count - length)
            }
            if got < 0 {
                let code = errno
                if shouldRetry(after: code, on: descriptor, waitingFor: Int16(POLLIN)) { continue }
                throw FileSystemError("cannot read", path: path, errno: code)
            }
            if got == 0 { break }
            length += got
        }
        data.count = length
        return data
    }

    /// Opens `path` read-only; `nil` only when there is no such file.
    ///
    /// `open` saying `ENOENT` is not enough to call a file absent: a file replaced by `rename`
    /// between two calls, or a faulty or remote file system, can make one `open` fail for a file
    /// that is there. A registry that took that for "no file" would write an empty one over every
    /// device. So the file counts as absent only when `stat` agrees; while the two disagree the
    /// open is tried again, and after `openAttempts` tries it is an error.
    /// - Throws: `FileSystemError` (`action`, the path and the reason) for any other failure; a
    ///   permission refused is 66, the rest 74.
    package static func openIfPresent(
        _ path: String, action: String = "cannot open", flags: Int32 = O_RDONLY | O_CLOEXEC
    ) throws(FileSystemError) -> Int32? {
        for _ in 1...openAttempts {
            let descriptor = open(path, flags)
            if descriptor >= 0 { return descriptor }
            let code = errno
            guard code == ENOENT else {
                throw FileSystemError(action, path: path, errno: code, exitStatus: code == EACCES ? .noInput : .ioError)
            }
            var info = stat()
            if stat(path, &info) != 0, errno == ENOENT { return nil }
        }
        throw FileSystemError(
            action, path: path, errno: ENOENT, detail: "the file is there, but opening it keeps failing")
    }

    /// How often `openIfPresent` opens a file that `stat` finds but `open` does not.
    package static let openAttempts = 5

    #if os(Linux)
    private static let mapFlags = MAP_PRIVATE | MAP_POPULATE
    #else
    private static let mapFlags = MAP_PRIVATE
    #endif

    /// Creates `path` and any missing parents with mode 0700. Existing directories are left as they are.
    package static func createPrivateDirectory(_ path: String) throws(FileSystemError) {
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0 {
            if (isDirectory.st_mode & S_IFMT) == S_IFDIR { return }
            throw FileSystemError("cannot create directory", path: path, errno: ENOTDIR, exitStatus: .cannotCreate)
        }
        let parent = PosixFile.parentDirectory(of: path)
        if !parent.isEmpty, parent != path { try createPrivateDirectory(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw FileSystemError("cannot create directory", path: path, errno: errno, exitStatus: .cannotCreate)
        }
    }

    /// What makes the directory holding the file at `path` unsafe (`unsafeDirectoryProblem`); `nil`
    /// when it is safe or missing. A cache in such a directory is neither read nor written: a token
    /// another user planted there would be sent as ours, and the file is theirs to replace.
    package static func unsafeParentDirectoryProblem(of path: String) -> String? {
        let directory = parentDirectory(of: path)
        return unsafeDirectoryProblem(directory.isEmpty ? "." : directory)
    }

    /// What makes the directory `path` unsafe for the state, as ssh's StrictModes judges a home
    /// directory: writable by group or others (they could replace or plant files in it), or owned
    /// by a user other than this one and root. `nil` when it is safe, or missing.
    package static func unsafeDirectoryProblem(_ path: String) -> String? {
        var info = stat()
        guard stat(path.isEmpty ? "." : path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        let mode = info.st_mode & 0o7777
        if info.st_uid != geteuid(), info.st_uid != 0 {
            return "\(path) belongs to another user (uid \(info.st_uid)), who can replace the files in it"
        }
        if mode & 0o022 != 0 {
            return
                "\(path) is writable by \(mode & 0o002 != 0 ? "every user" : "its group") (mode \(String(mode, radix: 8))), "
                + "who could replace or plant files in it; chmod 700 \(path)"
        }
        return nil
    }

    /// Refuses to write state into an unsafe directory (see `unsafeDirectoryProblem`).
    /// - Throws: `FileSystemError` (exit 78, a configuration to fix).
    package static func checkPrivateDirectory(_ path: String) throws(FileSystemError) {
        guard let problem = unsafeDirectoryProblem(path) else { return }
        throw FileSystemError(refusing: problem, path: path)
    }

    /// Replaces `path` with `data` so that a reader sees the old file or the new one, never a mix,
    /// and a crash at any point leaves one of them whole.
    ///
    /// Writes a temporary file `<path>.tmp-<pid>-<random>` in the same directory, `fsync`s it, renames
    /// it over `path`, then `fsync`s the directory so the rename itself is durable. The new file gets
    /// exactly `mode` (0600 by default), whatever the umask.
    @discardableResult
    package static func replaceAtomically(
        _ path: String, with data: some ContiguousBytes, mode: mode_t = 0o600,
        committingIf stillCurrent: (() -> Bool)? = nil
    ) throws(FileSystemError) -> Bool {
        try replaceAtomically(
            path, mode: mode, committingIf: stillCurrent
        ) { (output: inout FileOutput) throws(FileSystemError) in
            let result: Result<Void, FileSystemError> = data.withUnsafeBytes { buffer in
                do throws(FileSystemError) {
                    return .success(try output.write(buffer))
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
        }
    }

    /// Like `replaceAtomically(_:with:mode:)`, with the contents written piece by piece by `body`, so
    /// a large file need not be held in memory whole. When `body` throws, `path` is left as it was.
    ///
    /// - Parameter stillCurrent: asked after the temporary file is synced, just before the rename;
    ///   `false` leaves `path` as it is (for a file another program rewrites without the lock).
    /// - Returns: `false` when `stillCurrent` said no and nothing was replaced.
    @discardableResult
    package static func replaceAtomically(
        _ path: String, mode: mode_t = 0o600, committingIf stillCurrent: (() -> Bool)? = nil,
        writing body: (inout FileOutput) throws(FileSystemError) -> Void
    ) throws(FileSystemError) -> Bool {
        let temporary = "\(path)\(temporarySuffix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if descriptor < 0 {
            throw FileSystemError("cannot create", path: temporary, errno: errno, exitStatus: .cannotCreate)
        }
        fchmod(descriptor, mode)
        var failure: FileSystemError?
        var output = FileOutput(descriptor: descriptor, path: temporary)
        do throws(FileSystemError) {
            try body(&output)
        } catch {
            failure = error
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = FileSystemError("cannot sync", path: temporary, errno: errno)
        }
        close(descriptor)
        if failure == nil, let stillCurrent, !stillCurrent() {
            unlink(temporary)
            return false
        }
        if failure == nil, rename(temporary, path) != 0 {
            failure = FileSystemError("cannot replace", path: path, errno: errno)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        syncDirectory(of: path)
        return true
    }

    /// `fsync`s the directory holding `path`, so a rename in it is durable (best effort).
    package static func syncDirectory(of path: String) {
        let directory = PosixFile.parentDirectory(of: path)
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    /// Allocates `bytes` in a new temporary file beside `path`, then removes it: whether a file of
    /// that size could be written there now, without writing it.
    /// - Throws: `FileSystemError` naming the temporary file and the system's reason (ENOSPC, EROFS…).
    package static func checkRoom(beside path: String, bytes: Int) throws(FileSystemError) {
        let temporary = "\(path)\(temporarySuffix)\(getpid())-room"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            throw FileSystemError("cannot create", path: temporary, errno: errno, exitStatus: .cannotCreate)
        }
        defer {
            close(descriptor)
            unlink(temporary)
        }
        let code = posix_fallocate(descriptor, 0, off_t(bytes))
        // A file system that cannot allocate ahead (EOPNOTSUPP) says nothing either way.
        if code != 0, code != EOPNOTSUPP, code != EINVAL {
            throw FileSystemError("cannot write", path: temporary, errno: code)
        }
    }

    /// What identifies one version of a file without reading it: device, inode, size, and the times
    /// of its last modification and last status change (nanoseconds). The status change time moves
    /// with every write, rename, `chmod` or `utimensat`, so a rewrite that restores the size and the
    /// modification time still changes the stamp.
    package struct Stamp: Sendable, Equatable {
        /// `st_dev`: the device the file is on.
        package let device: UInt64
        /// `st_ino`: the file's inode number on that device.
        package let inode: UInt64
        /// `st_size` in bytes, or less after `truncated(to:)`.
        package private(set) var size: Int64
        /// The last modification, whole seconds since 1970.
        package let modifiedSeconds: Int
        /// The last modification, nanoseconds past `modifiedSeconds`.
        package let modifiedNanoseconds: Int
        /// The last status change, whole seconds since 1970.
        package let changedSeconds: Int
        /// The last status change, nanoseconds past `changedSeconds`.
        package let changedNanoseconds: Int

        /// The file's size in bytes.
        package var byteCount: Int { Int(size) }

        /// When the file was last modified, in seconds since 1970.
        package var modifiedAt: Double { Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9 }

        /// The stamp of what `stat(2)` or `fstat(2)` reported.
        package init(_ info: stat) {
            #if canImport(Darwin)
            let modified = info.st_mtimespec
            let changed = info.st_ctimespec
            #else
            let modified = info.st_mtim
            let changed = info.st_ctim
            #endif
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modifiedSeconds = Int(modified.tv_sec)
            modifiedNanoseconds = Int(modified.tv_nsec)
            changedSeconds = Int(changed.tv_sec)
            changedNanoseconds = Int(changed.tv_nsec)
        }

        /// This stamp with the size `byteCount`: what a file read only that far is known to be.
        package func truncated(to byteCount: Int) -> Stamp {
            var stamp = self
            stamp.size = Int64(byteCount)
            return stamp
        }
    }

    /// The stamp of the file at `path`; `nil` when there is none (or it cannot be examined).
    package static func stamp(of path: String) -> Stamp? {
        (try? examinedStamp(of: path)) ?? nil
    }

    /// Everything in the open file `descriptor` from `offset` to its end, read with `pread` (the
    /// descriptor's position is left alone) into a buffer of `capacity` bytes, doubled while it
    /// fills; `path` names the file in the error.
    package static func contents(
        ofOpen descriptor: Int32, from offset: Int = 0, path: String, capacity: Int = 64 * 1024
    ) throws(FileSystemError) -> Data {
        var data = Data(count: max(capacity, 1))
        var length = 0
        while true {
            if length == data.count { data.count *= 2 }
            let count = data.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + length, buffer.count - length, off_t(offset + length))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("cannot read", path: path, errno: errno)
            }
            if count == 0 { break }
            length += count
        }
        data.count = length
        return data
    }

    /// The stamp of the open file `descriptor`; `nil` when it cannot be examined.
    package static func stamp(ofOpen descriptor: Int32) -> Stamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Stamp(info)
    }

    /// The stamp of the file at `path`; `nil` when there is none.
    /// - Throws: `FileSystemError` when it cannot be examined (a permission, a component that is a file).
    package static func examinedStamp(of path: String) throws(FileSystemError) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw FileSystemError("cannot examine", path: path, errno: code)
        }
        return Stamp(info)
    }

    /// What `replaceAtomically` appends to a path to name its temporary file.
    package static let temporarySuffix = ".tmp-"

    /// Removes the temporary files `replaceAtomically(path, ...)` left behind when a writer was
    /// killed mid-write. Call it only while holding the lock every writer of `path` holds, so no
    /// live writer's file is taken.
    package static func removeStaleTemporaries(of path: String) {
        let directory = parentDirectory(of: path)
        let prefix = fileName(of: path) + temporarySuffix
        guard let stream = opendir(directory.isEmpty ? "." : directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix) {
                unlink(directory.isEmpty ? name : directory + "/" + name)
            }
        }
    }

    /// The permission bits of `path`, or `nil` when it cannot be examined.
    package static func permissions(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The permission bits of `path` when group or others have any access to it (a secret that
    /// should be 0600); `nil` when they have none, or when it cannot be examined.
    package static func permissionsOpenToOthers(of path: String) -> mode_t? {
        guard let mode = permissions(of: path), mode & 0o077 != 0 else { return nil }
        return mode
    }

    /// What is at a path: nothing, a directory, or something else (a file, a device, a socket).
    package enum Entry: Sendable, Equatable {
        case missing, directory, other
    }

    /// What `path` names, following symbolic links; `.missing` also when it cannot be examined
    /// (a component that is not a directory, a directory that cannot be searched).
    package static func entry(at path: String) -> Entry {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        return info.st_mode & S_IFMT == S_IFDIR ? .directory : .other
    }

    /// Whether this process may create and remove entries in the directory `path` (`access(2)` with
    /// write and search permission; a read-only file system says no even to root).
    package static func isWritableDirectory(_ path: String) -> Bool {
        entry(at: path) == .directory && access(path, W_OK | X_OK) == 0
    }

    /// The modification time of `path` in seconds since 1970, or `nil`.
    package static func modificationTime(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mtim.tv_sec)
    }
}

extension PosixFile {
    /// The last component of `path`: everything after the last `/` (all of it when there is none).
    package static func fileName(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// The directory part of `path`: everything before the last `/`; "" for a bare name, "/" for a
    /// top-level entry. Plain string arithmetic, no `URL` round trip.
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }
}

/// `read(2)`, by a name `PosixFile.read` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
