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

/// Standard input for a hook, read with `read(2)` (no `FileHandle`, so tools need only
/// FoundationEssentials). Reading it to its end, with a limit, is `InputFile.read("-", ...)`.
package enum FileDescriptorInput {
    /// Standard input for a hook, which must never hang its caller: nothing when it is a terminal;
    /// otherwise bytes up to EOF, but at most `limit` bytes and only while data keeps coming (a
    /// pause longer than `idleMilliseconds` ends the read, so an inherited pipe nobody writes to
    /// cannot block).
    package static func readAvailable(
        descriptor: Int32 = 0, limit: Int = 64 * 1024, idleMilliseconds: Int32 = 1000
    ) -> Data {
        if isatty(descriptor) == 1 { return Data() }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count < limit {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, idleMilliseconds)
            if polled < 0, errno == EINTR { continue }
            if polled <= 0 { break }
            let count = chunk.withUnsafeMutableBytes {
                read(descriptor, $0.baseAddress, min($0.count, limit - data.count))
            }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            if count <= 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return data
    }
}
