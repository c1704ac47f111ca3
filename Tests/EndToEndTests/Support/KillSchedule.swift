import Foundation
import PushKitFreeCore
import PushKitFreeEmulator
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// When a crash test SIGKILLs one process it started.
enum KillPlan: Equatable, CustomStringConvertible {
    /// Left to finish.
    case never
    /// Killed this long after it was started (if still running).
    case after(TimeInterval)
    /// Killed `delay` after it creates its `count`-th temporary file beside the state file: with no
    /// delay while it writes the registry, with a few milliseconds in the fsync, the rename or just
    /// after (see `TemporaryFileTrigger`).
    case onTemporaryFile(count: Int, delay: TimeInterval)

    var description: String {
        switch self {
        case .never: "never"
        case .after(let delay): String(format: "after %.1f ms", delay * 1000)
        case .onTemporaryFile(let count, let delay):
            "on temporary file \(count)" + (delay > 0 ? String(format: " + %.1f ms", delay * 1000) : "")
        }
    }
}

/// The seeded randomness of a crash test, so a failing run can be repeated: the seed comes from
/// `PUSHKIT_CRASH_SEED` when set, else at random, and every test prints it. `PUSHKIT_SOAK_SCALE`
/// (a whole number, default 1) multiplies the process and round counts, for `make soak`.
struct KillSchedule {
    let seed: UInt64
    private var generator: SplitMix64

    /// Chooses the seed and prints it at once, so a run that fails, hangs or is killed can be repeated.
    init(seed: UInt64? = nil, test: String = #function) {
        let chosen =
            seed
            ?? UInt64(ProcessInfo.processInfo.environment["PUSHKIT_CRASH_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        self.seed = chosen
        generator = SplitMix64(seed: chosen)
        print("\(test): seed \(chosen) (PUSHKIT_CRASH_SEED=\(chosen) repeats this run)")
    }

    /// `PUSHKIT_SOAK_SCALE`, at least 1.
    static var scale: Int { max(1, Int(ProcessInfo.processInfo.environment["PUSHKIT_SOAK_SCALE"] ?? "") ?? 1) }

    /// A uniform number in [0, 1), from the seeded generator.
    mutating func fraction() -> Double { generator.nextUnitInterval() }

    /// A uniform whole number in `range`, from the seeded generator.
    mutating func number(in range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    /// Whether an event of `probability` happens, from the seeded generator.
    mutating func chance(_ probability: Double) -> Bool { fraction() < probability }

    /// A kill at the process's `count`-th temporary file: at once half the time (in the write), else
    /// up to 15 ms later (in the fsync, the rename, or just after).
    mutating func writeKill(count: Int = 1) -> KillPlan {
        .onTemporaryFile(count: count, delay: chance(0.5) ? 0 : fraction() * 0.015)
    }
}

/// SIGKILLs chosen processes the moment they create a temporary file beside the state file
/// (`<state file>.tmp-<pid>-<random>`, written by `StateFileRegistry.update`), so the kill lands while
/// the registry is being written, synced or renamed: a window of about a millisecond that random
/// delays rarely hit. Watches the directory with inotify (Linux), no polling.
final class TemporaryFileTrigger: Sendable {
    private let descriptor: Int32
    private let prefix: String
    private let state = Mutex<
        (armed: [Int32: (count: Int, delay: TimeInterval)], killed: Set<Int32>, created: Int, running: Bool)
    >(([:], [], 0, true))
    private let finished = Atomic(false)

    /// Starts watching `stateFile`'s directory, which must exist.
    init(stateFile: String) throws {
        let url = URL(fileURLWithPath: stateFile)
        prefix = url.lastPathComponent + ".tmp-"
        #if os(Linux)
        descriptor = inotify_init1(Int32(O_CLOEXEC | O_NONBLOCK))
        guard descriptor >= 0 else { throw TriggerError(message: "inotify_init1: errno \(errno)") }
        // IN_CREATE.
        guard inotify_add_watch(descriptor, url.deletingLastPathComponent().path, 0x0000_0100) >= 0 else {
            close(descriptor)
            throw TriggerError(message: "inotify_add_watch \(url.deletingLastPathComponent().path): errno \(errno)")
        }
        Thread { [self] in watch() }.start()
        #else
        throw TriggerError(message: "TemporaryFileTrigger needs inotify (Linux)")
        #endif
    }

    deinit { stop() }

    /// Kills `pid` `delay` seconds after it creates its `count`-th temporary file from now on. The
    /// watcher waits out the delay itself, so keep it to milliseconds.
    func arm(_ pid: Int32, count: Int = 1, delay: TimeInterval = 0) {
        state.withLock { $0.armed[pid] = (count, delay) }
    }

    /// Forgets `pid` (it exited before its time).
    func disarm(_ pid: Int32) {
        _ = state.withLock { $0.armed.removeValue(forKey: pid) }
    }

    /// Whether this trigger killed `pid`.
    func killed(_ pid: Int32) -> Bool { state.withLock { $0.killed.contains(pid) } }

    /// The temporary files created so far, by anyone.
    var created: Int { state.withLock { $0.created } }

    /// Stops watching; returns once the watcher thread has ended.
    func stop() {
        let wasRunning = state.withLock { state in
            defer { state.running = false }
            return state.running
        }
        guard wasRunning else { return }
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
        close(descriptor)
    }

    private func watch() {
        defer { finished.store(true, ordering: .releasing) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while state.withLock({ $0.running }) {
            guard poll(&poller, 1, 20) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            var offset = 0
            // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
            while offset + 16 <= count {
                let length = buffer.withUnsafeBytes {
                    Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                created(name: String(decoding: nameBytes, as: UTF8.self))
                offset += 16 + length
            }
        }
    }

    private func created(name: String) {
        guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }) else { return }
        let delay = state.withLock { state -> TimeInterval? in
            state.created += 1
            guard let armed = state.armed[pid] else { return nil }
            if armed.count > 1 {
                state.armed[pid] = (armed.count - 1, armed.delay)
                return nil
            }
            return armed.delay
        }
        guard let delay else { return }
        if delay > 0 { usleep(useconds_t(delay * 1_000_000)) }
        // Only if still armed: a process that ended meanwhile was disarmed by whoever waited for it.
        state.withLock { state in
            guard state.armed.removeValue(forKey: pid) != nil, kill(pid, SIGKILL) == 0 else { return }
            state.killed.insert(pid)
        }
    }

    struct TriggerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
