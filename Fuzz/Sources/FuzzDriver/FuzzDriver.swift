#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzHarness

/// Runs libFuzzer on one `FuzzTarget`.
///
/// SwiftPM links an executable's top-level code as `main`, which would hide libFuzzer's own
/// `main`, so each `fuzz-<name>` program's top-level code calls `run(_:)`, which hands the
/// command line to libFuzzer's `LLVMFuzzerRunDriver`. A broken property traps (`fatalError`), which
/// libFuzzer reports as a crash and saves the input.
public enum FuzzDriver {
    /// The target the running program fuzzes; set once, before libFuzzer starts.
    nonisolated(unsafe) static var target: FuzzTarget = .stateFile

    /// Fuzzes `target` with the process's command line as libFuzzer's options; never returns.
    public static func run(_ target: FuzzTarget) -> Never {
        self.target = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput))
    }
}

/// libFuzzer's callback: one input, 0 to go on. Exported under libFuzzer's name as well, which its
/// library refers to.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do throws(FuzzViolation) {
        try FuzzDriver.target.check(input)
    } catch {
        fatalError("\(FuzzDriver.target.rawValue): \(error.message)")
    }
    return 0
}

/// libFuzzer's driver, for programs that have their own `main` (libFuzzer's `FuzzerInterface.h`).
// swift-format-ignore: AlwaysUseLowerCamelCase
// libFuzzer's C name.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
