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

/// Reads standard input to the end with `read(2)` (no `FileHandle`, so tools need only FoundationEssentials).
public enum FileDescriptorInput {
    /// All bytes of standard input; empty when it is closed or a terminal sends EOF at once.
    public static func readAll(descriptor: Int32 = 0) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return data
    }
}
