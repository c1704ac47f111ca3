import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("input files: read whole, never past their limit")
struct InputFileTests {
    @Test("/dev/zero stops at the limit: refused with 65, naming the input and the limit")
    func endlessDevice() {
        let error = #expect(throws: InputFileError.self) {
            try InputFile.read("/dev/zero", named: "--payload-file /dev/zero", limit: 64 << 10)
        }
        #expect(error?.exitStatus == .dataError)
        #expect(error?.message == "--payload-file /dev/zero is larger than 64 KiB (65536 bytes), the most it may hold")
    }

    @Test("a file of exactly the limit is read; one byte more is refused; a missing one is 66")
    func toTheByte() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: path))
        #expect(try InputFile.read(path, named: "f", limit: 100) == Data(repeating: 7, count: 100))
        let error = #expect(throws: InputFileError.self) { try InputFile.read(path, named: "f", limit: 99) }
        #expect(error?.exitStatus == .dataError && error?.message == "f is larger than 99 bytes, the most it may hold")
        let missing = #expect(throws: InputFileError.self) { try InputFile.read(path + "-no", named: "g", limit: 9) }
        #expect(missing?.exitStatus == .noInput && missing?.message == "g does not exist")
    }

    @Test("a pipe is read to its end within the limit, and stopped just past it otherwise")
    func pipes() throws {
        for (written, limit, accepted) in [(70_000, 70_000, true), (70_001, 70_000, false), (0, 10, true)] {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let (readEnd, writeEnd) = (ends[0], ends[1])
            let writer = Thread {
                let bytes = [UInt8](repeating: 1, count: written)
                bytes.withUnsafeBytes { _ = write(writeEnd, $0.baseAddress, $0.count) }
                close(writeEnd)
            }
            writer.start()
            defer { close(readEnd) }
            let read = try PosixFile.read(readEnd, atMost: limit + 1, path: "pipe")
            #expect((read.count <= limit) == accepted && read.count == min(written, limit + 1))
            if !accepted {
                // The writer may still be blocked on the rest: let it finish.
                _ = try PosixFile.read(readEnd, atMost: .max, path: "pipe")
            }
        }
    }

    @Test("limits in words: KiB, MiB, or bytes")
    func limitsInWords() {
        #expect(InputFile.describe(bytes: 4096) == "4 KiB (4096 bytes)")
        #expect(InputFile.describe(bytes: 64 << 20) == "64 MiB (67108864 bytes)")
        #expect(InputFile.describe(bytes: 1000) == "1000 bytes")
    }
}
