import Foundation

/// Splits a byte stream into lines, as MCP's stdio transport frames messages: one JSON-RPC
/// message per line, ended by LF.
///
/// Linear in the bytes: each byte is looked at once, when its chunk arrives (`memchr` for the
/// LF), and only the line being read is kept, never more than `limit` bytes of it. A line that
/// passes `limit` is reported once, as soon as it does, and the rest of it is skipped up to its
/// LF without being kept.
package struct LineFramer: Sendable {
    /// What a chunk of input completes.
    package enum Event: Sendable, Equatable {
        /// A whole line, without its LF; never empty.
        case line(Data)
        /// A line longer than `limit` bytes began: it is skipped to its end.
        case overlong
    }

    /// The most bytes a line may have, its LF not counted.
    package let limit: Int
    /// The line being read: its bytes so far, at most `limit`.
    private var partial = Data()
    /// Whether the line being read passed `limit`, so its bytes are skipped up to its LF.
    private var skipping = false

    /// A framer of lines of at most `limit` bytes.
    package init(limit: Int) {
        self.limit = limit
    }

    /// The lines `chunk` completes, in order, and `.overlong` for a line that passes `limit` in it.
    package mutating func push(_ chunk: UnsafeRawBufferPointer) -> [Event] {
        guard let base = chunk.baseAddress else { return [] }
        var events: [Event] = []
        var start = 0
        while start < chunk.count {
            let rest = chunk.count - start
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), rest)
            let end = found.map { base.distance(to: UnsafeRawPointer($0)) } ?? chunk.count
            if !skipping {
                if partial.count + (end - start) > limit {
                    skipping = true
                    partial = Data()
                    events.append(.overlong)
                } else {
                    partial.append(base.assumingMemoryBound(to: UInt8.self) + start, count: end - start)
                }
            }
            guard found != nil else { break }
            // The LF ends the line: a whole one is handed on, a skipped one is over.
            if !skipping, !partial.isEmpty { events.append(.line(partial)) }
            partial = Data()
            skipping = false
            start = end + 1
        }
        return events
    }

    /// At the end of the input: the last line, when it had no LF.
    package mutating func finish() -> [Event] {
        defer {
            partial = Data()
            skipping = false
        }
        return skipping || partial.isEmpty ? [] : [.line(partial)]
    }
}
