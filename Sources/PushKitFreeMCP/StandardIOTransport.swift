import Dispatch
import Foundation
import Logging
import MCP
import PushKitFreeCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MCP's stdio transport, as `pushkit-mcp` speaks it: one JSON-RPC message per line on standard
/// input, one per line on standard output.
///
/// In place of the SDK's `StdioTransport`, which looks for the end of a line from the start of
/// everything unread after each 4 KiB it reads (a line of n bytes costs n²/8 KiB steps: 95 s of
/// CPU for 8 MB), takes lines of any length into memory, and ends the moment standard input ends,
/// so requests still being answered then never are. Here:
/// - lines are framed by `LineFramer`, each byte looked at once;
/// - a line over `lineLimit` is answered at once with a JSON-RPC error (invalid request, `id`
///   null) and the rest of it skipped without being kept; a line that is not one JSON-RPC request
///   or notification is answered the same way (`AgentServer.problem(in:)`, the rule `/mcp`
///   follows), so the SDK sees only messages it answers once each, or not at all;
/// - when standard input ends, the messages end (and `pushkit-mcp` with them) only once every
///   request read has been answered (`PendingRequests`), or the output is gone.
///
/// Standard input is read with blocking reads on a thread of its own, and standard output written
/// on a serial queue: neither blocks a thread of Swift's cooperative pool, and neither descriptor
/// is made non-blocking (a flag that would change them for the client that shares them too).
package actor StandardIOTransport: Transport {
    /// The longest message read, in bytes, its line break not counted: 1 MiB. The tools' arguments
    /// are a few kilobytes at most (a notification carries 4 KB), and `/mcp` takes 16 KiB; a
    /// client's message is far below this, and a longer line is a mistake or an attack.
    package static let lineLimit = 1 << 20

    /// The SDK's logger; this transport logs nothing.
    package nonisolated let logger = Logger(label: "pushkit-mcp.stdio", factory: { _ in SwiftLogNoOpLogHandler() })

    private let input: Int32
    private let limit: Int
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private let pending = PendingRequests()
    private let output: LineOutput
    private var connected = false

    /// A transport on `input` and `output` (standard input and output), taking lines of at most
    /// `lineLimit` bytes.
    package init(input: Int32 = 0, output: Int32 = 1, lineLimit: Int = StandardIOTransport.lineLimit) {
        self.input = input
        limit = lineLimit
        (messages, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let continuation = continuation
        self.output = LineOutput(descriptor: output) { continuation.finish() }
    }

    /// Starts reading standard input. A write to a closed output fails with EPIPE rather than
    /// ending the process with SIGPIPE.
    package func connect() async throws {
        guard !connected else { return }
        connected = true
        signal(SIGPIPE, SIG_IGN)
        let reader = Thread { [input, limit, continuation, pending, output] in
            Self.readLines(
                from: input, limit: limit, into: continuation, pending: pending, output: output)
        }
        reader.name = "pushkit-mcp stdin"
        reader.start()
    }

    /// Ends the messages; the reading thread is left blocked in `read`, and ends with the process.
    package func disconnect() async {
        continuation.finish()
    }

    /// Writes `data` and a line break; once the answer to the last request is written after the
    /// input ended, ends the messages.
    /// - Throws: `MCPError.transportError` when the output is closed or fails (the messages end).
    package func send(_ data: Data) async throws {
        try await output.write(data)
        if let id = PendingRequests.answerID(of: data), pending.settled(id) { continuation.finish() }
    }

    /// The messages read, each one line.
    package func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    /// The reading thread: lines to `continuation`, the refused ones answered on `output`.
    private static func readLines(
        from input: Int32, limit: Int, into continuation: AsyncThrowingStream<Data, any Error>.Continuation,
        pending: PendingRequests, output: LineOutput
    ) {
        var framer = LineFramer(limit: limit)
        let handle = { (event: LineFramer.Event) in
            switch event {
            case .overlong:
                output.enqueue(
                    errorAnswer(
                        .invalidRequest(
                            "a message may be at most \(limit) bytes, on one line; the rest of this line is skipped")))
            case .line(let message):
                if let problem = AgentServer.problem(in: message) {
                    output.enqueue(errorAnswer(problem))
                    return
                }
                if let id = PendingRequests.requestID(of: message) {
                    pending.received(id)
                } else if let id = PendingRequests.cancelledID(of: message) {
                    _ = pending.settled(id)
                }
                continuation.yield(message)
            }
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if PosixFile.shouldRetry(after: errno, on: input, waitingFor: Int16(POLLIN)) { continue }
                break
            }
            if count == 0 { break }
            chunk.withUnsafeBytes { bytes in
                for event in framer.push(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { handle(event) }
            }
        }
        for event in framer.finish() { handle(event) }
        if pending.endInput() { continuation.finish() }
    }

    /// A JSON-RPC error answer with a `null` id, as for a message whose id cannot be known.
    static func errorAnswer(_ error: MCPError) -> Data {
        JSONValue.object([
            "jsonrpc": "2.0",
            "id": .null,
            "error": .object([
                "code": .number(Double(error.code)), "message": .string(error.errorDescription ?? "\(error)"),
            ]),
        ]).serialized()
    }
}

/// Standard output, one message a line, written in order on a serial queue with blocking writes.
/// Once a write fails (the client closed its end) every later one fails at once, and `closed`
/// is called.
final class LineOutput: Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "pushkit-mcp.stdout")
    private let failed = Mutex(false)
    private let closed: @Sendable () -> Void

    init(descriptor: Int32, closed: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.closed = closed
    }

    /// Writes `message` and a line break, after everything written or enqueued before.
    func write(_ message: Data) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in waiter.resume(with: Result { try writeNow(message) }) }
        }
    }

    /// Writes `message` and a line break in turn, without waiting; a failure ends the output.
    func enqueue(_ message: Data) {
        queue.async { [self] in _ = try? writeNow(message) }
    }

    private func writeNow(_ message: Data) throws {
        if failed.withLock({ $0 }) { throw MCPError.transportError(POSIXError(.EPIPE)) }
        var line = message
        line.append(UInt8(ascii: "\n"))
        var written = 0
        while written < line.count {
            let count = line.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count >= 0 {
                written += count
                continue
            }
            let code = errno
            if PosixFile.shouldRetry(after: code, on: descriptor, waitingFor: Int16(POLLOUT)) { continue }
            failed.withLock { $0 = true }
            closed()
            throw MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
        }
    }
}

/// `write(2)`, by a name `LineOutput.write` does not hide.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
