#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Collects lines for a file descriptor in memory and writes them with one `write(2)` per flush.
///
/// The connection handlers flush right before they flush their responses to the socket, once per
/// read batch (event-loop tick), so a record line is in the file before its client sees the
/// answer, and 100 answers in one batch cost one system call. Nothing is written until `open()`,
/// so the `listening on` line always comes first on standard output.
final class OutputBuffer: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var isOpen = false
        var isBroken = false
    }

    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let state = Mutex(State())

    /// - Parameter closesDescriptor: whether `close()` closes the descriptor (a `--record` file).
    init(descriptor: Int32, closesDescriptor: Bool) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
    }

    /// Queues `bytes` for the next flush.
    func append(_ bytes: [UInt8]) {
        state.withLock { state in
            if !state.isBroken { state.pending.append(contentsOf: bytes) }
        }
    }

    /// Queues `text` for the next flush.
    func append(_ text: String) {
        state.withLock { state in
            if !state.isBroken { state.pending.append(contentsOf: text.utf8) }
        }
    }

    /// Lets flushes write from now on.
    func open() {
        state.withLock { $0.isOpen = true }
        flush()
    }

    /// Writes everything queued. A reader that went away (EPIPE) stops further output.
    func flush() {
        state.withLock { state in
            guard state.isOpen, !state.pending.isEmpty else { return }
            let ok = state.pending.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += written
                }
                return true
            }
            state.pending.removeAll(keepingCapacity: state.pending.count < 1 << 20)
            if !ok { state.isBroken = true }
        }
    }

    /// Flushes and, for a `--record` file, closes it.
    func close() {
        flush()
        if closesDescriptor {
            state.withLock { state in
                state.isBroken = true
                #if canImport(Glibc)
                _ = Glibc.close(descriptor)
                #else
                _ = Darwin.close(descriptor)
                #endif
            }
        }
    }
}
