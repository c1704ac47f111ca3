#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushKitFreeCore

/// Hands the rest of a run to a process of its own, so the caller (a reply hook, an agent's tool)
/// gets its exit status at once and is never held by the delivery.
///
/// One fork: the child starts a session of its own (`setsid`: no controlling terminal, no job-control
/// signals from the caller's shell, and it only ever opens `/dev/null`, files and sockets, so it
/// never acquires a terminal) and carries on; the caller returns at once and does not wait for it.
/// When the caller exits, init (or the nearest subreaper) adopts the child, so no zombie is left.
/// A second fork, the classic daemon recipe, would only guard against acquiring a terminal, and
/// measured about a millisecond of the caller's time here, which a hook pays on every reply.
/// The child points standard input, output and error at `/dev/null` and closes every other
/// descriptor it inherited: a caller that captures output through pipes
/// (`subprocess.run(..., capture_output=True)`) sees them close when the caller's own process exits,
/// not when the delivery ends. It also moves to `/`, so it keeps no directory busy, and unblocks
/// every signal the caller had blocked.
///
/// Only for single-threaded processes (the tools are): after `fork` only the calling thread exists.
package enum ProcessDetacher {
    /// Which side of the fork a call returned on.
    package enum Role: Sendable, Equatable {
        /// The original process: the delivery is in other hands now.
        case caller
        /// The detached process: carry on with the delivery.
        case detached
    }

    /// Detaches; returns `.caller` in the calling process and `.detached` in the new one.
    /// - Throws: `DetachError` (exit 71) when no process can be made.
    package static func detach() throws(DetachError) -> Role {
        let child = fork()
        if child < 0 { throw DetachError(reason: PosixFile.describe(errno: errno)) }
        if child > 0 { return .caller }
        _ = setsid()
        isolate()
        return .detached
    }

    /// Standard streams to /dev/null, every other inherited descriptor closed, cwd `/`.
    private static func isolate() {
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            for descriptor: Int32 in 0...2 { _ = dup2(null, descriptor) }
            if null > 2 { close(null) }
        }
        closeInheritedDescriptors()
        _ = chdir("/")
        // A caller may have blocked signals (Foundation's Process does); a delivery must still
        // stop on SIGTERM like any process.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        signal(SIGPIPE, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
    }

    /// Closes descriptors 3 and up: the ones listed in /proc/self/fd, else up to the soft limit.
    private static func closeInheritedDescriptors() {
        var open: [Int32] = []
        if let directory = opendir("/proc/self/fd") {
            let own = dirfd(directory)
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if let descriptor = Int32(name), descriptor > 2, descriptor != own { open.append(descriptor) }
            }
            closedir(directory)
        } else {
            let limit = sysconf(Int32(_SC_OPEN_MAX))
            open = Array(3..<Int32(clamping: limit > 3 ? min(limit, 65_536) : 1024))
        }
        for descriptor in open { close(descriptor) }
    }
}

/// The background process could not be started (`fork` failed): exit 71 (EX_OSERR).
package struct DetachError: PushKitError {
    /// Why `fork` failed, in words from `errno`.
    package let reason: String
    /// Always 71 (EX_OSERR).
    package var exitStatus: ExitStatus { .osError }
    /// "cannot start the background delivery:" and the reason.
    package var description: String { "cannot start the background delivery: \(reason)" }
}
