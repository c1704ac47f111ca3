import Foundation
import Testing

/// `Tests/Tools/fault_shim.c`, an `LD_PRELOAD` library that makes chosen file-system calls of the
/// built tools fail (a spurious `ENOENT` from `open`, a failing `rename`, a full disk under a
/// directory), built once per test run with the toolchain's `clang`.
enum FaultShim {
    /// The built library's path.
    static let library: String = {
        let directory = NSTemporaryDirectory() + "pushkit-fault-shim-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = directory + "/fault_shim.so"
        let arguments = [
            "-shared", "-fPIC", "-O1", "-o", output, RepositoryFiles.path("Tests/Tools/fault_shim.c"), "-ldl",
        ]
        // The toolchain's clang, which every machine that builds this package has; else the system's cc.
        var built = try? BuiltTool.runSystem("clang", arguments)
        if built?.status != 0 { built = try? BuiltTool.runSystem("cc", arguments) }
        precondition(built?.status == 0, "neither clang nor cc built the fault shim: \(built?.stderr ?? "not run")")
        return output
    }()

    /// `environment` with the shim preloaded and `faults` (`PUSHKIT_FAULT_*`, see the C file) set.
    static func environment(_ environment: [String: String], _ faults: [String: String]) -> [String: String] {
        environment.merging(faults) { _, fault in fault }.merging(["LD_PRELOAD": library]) { _, shim in shim }
    }
}
