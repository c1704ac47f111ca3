// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the parsers that read outside input (issue 11, "Bad input"). A package of
// its own so that the main package never links libFuzzer; see README.md here for how to run them.
// Build with: swift build -c release -Xswiftc -sanitize=fuzzer,address (Fuzz/run.sh does).

/// One executable per parser family: `fuzz-<name>`, whose corpus is `Corpus/<name>/`.
let families = [
    "state-file", "config", "payload", "data", "registration", "endpoint", "apns-error", "provider-key",
    "emulator-request",
]

/// The checks the fuzz targets make, shared with the main package's `swift test`.
let harness: Target.Dependency = .product(name: "FuzzHarness", package: "pushkit-free")

let package = Package(
    name: "pushkit-free-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "pushkit-free", path: "..")
    ],
    targets: [
        // libFuzzer's entry points: LLVMFuzzerTestOneInput, and the driver started from main. What
        // each target checks for one input is the main package's FuzzHarness library (in
        // ../Tests/FuzzHarness), which its corpus replay test runs too.
        .target(
            name: "FuzzDriver",
            dependencies: [harness],
            path: "Sources/FuzzDriver"
        )
    ]
        + families.map { name in
            .executableTarget(
                name: "fuzz-\(name)", dependencies: ["FuzzDriver", harness], path: "Sources/fuzz-\(name)")
        },
    swiftLanguageModes: [.v6]
)
