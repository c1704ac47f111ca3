// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the parsers that read outside input (issue 11, "Bad input"). A package of
// its own so that the main package never links libFuzzer; see README.md here for how to run them.
// Build with: swift build -c release -Xswiftc -sanitize=fuzzer,address (Fuzz/run.sh does).

/// One executable per parser family: `fuzz-<name>`, whose corpus is `Corpus/<name>/`.
let families = [
    "state-file", "config", "payload", "data", "registration", "endpoint", "apns-error", "provider-key", "emulator-request",
]

let package = Package(
    name: "pushkit-free-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "pushkit-free", path: ".."),
    ],
    targets: [
        // What each target checks for one input. Shared with the main package's corpus replay
        // test (Tests/PushKitFreeCoreTests/FuzzHarness is a symbolic link to this folder).
        .target(
            name: "FuzzHarness",
            dependencies: [
                .product(name: "PushKitFreeCore", package: "pushkit-free"),
                .product(name: "PushKitFreeServer", package: "pushkit-free"),
            ],
            path: "Sources/FuzzHarness"
        ),
        // libFuzzer's entry points: LLVMFuzzerTestOneInput, and the driver started from main.
        .target(
            name: "FuzzDriver",
            dependencies: ["FuzzHarness"],
            path: "Sources/FuzzDriver"
        ),
    ] + families.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver", "FuzzHarness"], path: "Sources/fuzz-\(name)")
    },
    swiftLanguageModes: [.v6]
)
