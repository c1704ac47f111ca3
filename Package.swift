// swift-tools-version:6.1
import Foundation
import PackageDescription

/// The tools, from tools.list (docs/internals.md, "Adding a tool"): each tool's command module, by
/// the program it is a link to. A program's target depends on its tools' modules.
let tools: [(name: String, program: String, module: String)] = {
    let list = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("tools.list")
    guard let text = try? String(contentsOf: list, encoding: .utf8) else { fatalError("cannot read \(list.path)") }
    return text.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 3, !fields[0].hasPrefix("#") else { return nil }
        return (fields[0], fields[1], fields[2])
    }
}()

/// The command modules of the tools that are `program`.
func toolModules(of program: String) -> [Target.Dependency] {
    tools.filter { $0.program == program }.map { .target(name: $0.module) }
}

// libcurl is loaded at run time, so nothing links against the closed-stream reset filter
// (CCurlShim/ClosedStreamResetFilter.c) or the PING probe (CCurlShim/HTTP2PingProbe.c): the
// programs that send export them so the loaded libcurl calls them.
let exportNghttp2Interposers: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=nghttp2_submit_rst_stream"], .when(platforms: [.linux])),
    .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=nghttp2_session_send"], .when(platforms: [.linux])),
]

// Every program is linked with lld, relative relocations packed (DT_RELR, glibc 2.36+) and only
// the symbols above exported: fewer relocations for the loader and a dynamic symbol table of a few
// hundred entries instead of ~9,000 (bench/README.md has the instruction counts). These are GNU
// and lld flags, for Linux only: elsewhere (macOS, untested here) the programs link with defaults.
let startupLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux])),
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux])),
]

// The packages ours depend on, each at the version it resolves to today, so that their versions are
// exact too (Package.resolved is not committed), with one product of each. SwiftPM resolves every
// package a target names, under any condition, and warns of a package that no target names; so
// PushKitFreeCore names each of these products on a platform this package is never built for (WASI:
// no processes, no dlopen, no libcurl), which builds and links nothing. A trait condition would not
// do: SwiftPM leaves out of resolution a package that only a disabled trait names.
let transitivePins: [(url: String, version: Version, product: String)] = [
    ("https://github.com/swift-server/async-http-client.git", "1.37.0", "AsyncHTTPClient"),
    ("https://github.com/adam-fowler/compress-nio.git", "1.5.0", "CompressNIO"),
    ("https://github.com/apple/swift-algorithms.git", "1.2.1", "Algorithms"),
    ("https://github.com/apple/swift-asn1.git", "1.7.4", "SwiftASN1"),
    ("https://github.com/apple/swift-async-algorithms.git", "1.1.4", "AsyncAlgorithms"),
    ("https://github.com/apple/swift-atomics.git", "1.3.0", "Atomics"),
    ("https://github.com/apple/swift-collections.git", "1.6.0", "Collections"),
    ("https://github.com/apple/swift-configuration.git", "1.4.0", "Configuration"),
    ("https://github.com/apple/swift-distributed-tracing.git", "1.7.3", "Tracing"),
    ("https://github.com/apple/swift-http-structured-headers.git", "1.7.0", "StructuredFieldValues"),
    ("https://github.com/apple/swift-nio-extras.git", "1.35.2", "NIOExtras"),
    ("https://github.com/apple/swift-nio-transport-services.git", "1.28.0", "NIOTransportServices"),
    ("https://github.com/apple/swift-numerics.git", "1.1.1", "Numerics"),
    ("https://github.com/apple/swift-service-context.git", "1.5.1", "ServiceContextModule"),
    ("https://github.com/apple/swift-system", "1.8.1", "SystemPackage"),
    ("https://github.com/mattt/eventsource.git", "1.1.1", "EventSource"),
    ("https://github.com/hummingbird-project/swift-websocket.git", "1.6.2", "WSCore"),
]

/// Each pinned package's product, on no platform this package is built for (see `transitivePins`).
let transitivePinUses: [Target.Dependency] = transitivePins.map { pin in
    let name = pin.url.split(separator: "/").last.map { $0.hasSuffix(".git") ? $0.dropLast(4) : $0 } ?? ""
    return .product(name: pin.product, package: String(name), condition: .when(platforms: [.wasi]))
}

let package = Package(
    name: "pushkit-free",
    platforms: [.macOS(.v15)],
    products: [
        // apns-jwt, register-apns and send-push: one program, chosen by the name it is called by
        // (`make` and the package add the links tools.list names; docs/internals.md).
        .executable(name: "pushkit-free", targets: ["pushkit-free"]),
        // register-apns-serve, apns-emulator and pushkit-mcp: one program, chosen the same way.
        .executable(name: "pushkit-free-server", targets: ["pushkit-free-server"]),
        // For the fuzz package (Fuzz/Package.swift), whose libFuzzer programs run these checks.
        .library(name: "FuzzHarness", targets: ["FuzzHarness"]),
    ],
    // Every package at one exact version, those we name and those they bring (`transitivePins`), so
    // that two clones build the same code whatever day they resolve (Package.resolved is not committed).
    // To move one: change its version here, `swift package update`, then `make test` and `make bench`.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-http2", exact: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        // Only `register-apns serve` (the register-apns-serve executable) links these. Hummingbird's
        // default traits (swift-configuration, full Foundation) are not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        // The Ember gateway's WebSocket route on `register-apns serve` (server module only).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        // Runs serve's background work (the write queue, the delivery thread) as services of its
        // application, stopped in order after the HTTP server (Hummingbird's own dependency).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        // The MCP server for agents (pushkit-mcp and serve's /mcp): only PushKitFreeMCP links it.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", exact: "0.12.1"),
    ] + transitivePins.map { .package(url: $0.url, exact: $0.version) },
    targets: [
        // MARK: C bridges
        // libcurl's headers only (apt libcurl4-openssl-dev): the library itself is not linked but
        // loaded when send-push first sends (CCurlShim/LibcurlLoader.c), so starting costs nothing.
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "CCurlShim",
            dependencies: ["CCurl"],
            path: "Sources/CCurlShim"
        ),

        // MARK: Core
        // The system's tz database read directly (TZif files, POSIX TZ rules, the zone names): a
        // library with no concept of ours, apart from the core it serves (docs/internals.md).
        .target(
            name: "PushKitFreeTimeZones",
            path: "Sources/PushKitFreeTimeZones"
        ),
        .target(
            name: "PushKitFreeCore",
            dependencies: [
                "PushKitFreeTimeZones",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA (RS256) for the FCM service account's assertion: BoringSSL's, already linked.
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ] + transitivePinUses,
            path: "Sources/PushKitFreeCore"
        ),
        // The device registry: devices and their rules, the JSON state file (cache, journal, the
        // replaced scripts' flat map), PostgreSQL, imports and registration bodies. Every tool but
        // the emulator links it; the core's send pipeline reaches it through `DeviceDirectory`.
        .target(
            name: "PushKitFreeRegistry",
            dependencies: ["PushKitFreeCore"],
            path: "Sources/PushKitFreeRegistry"
        ),
        // The libcurl HTTP/2 client, apart from the core so that only send-push loads libcurl
        // (its shared libraries cost ~6 ms at every start of a tool that links it).
        .target(
            name: "PushKitFreeTransport",
            dependencies: ["PushKitFreeCore", "CCurlShim"],
            path: "Sources/PushKitFreeTransport"
        ),
        .target(
            name: "PushKitFreeCLI",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeTimeZones",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/PushKitFreeCLI"
        ),
        // The emulator's server (SwiftNIO, HTTP/2, TLS) lives apart so the other tools never link NIO.
        .target(
            name: "PushKitFreeEmulator",
            dependencies: [
                "PushKitFreeCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/PushKitFreeEmulator"
        ),

        // The agent tools (notify, list_devices) on the MCP SDK: one definition for pushkit-mcp
        // (stdio) and serve's /mcp (HTTP). Apart so that no other tool links the SDK.
        .target(
            name: "PushKitFreeMCP",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PushKitFreeMCP"
        ),

        // The HTTP endpoint (`register-apns serve`) on Hummingbird 2, apart so only its executable
        // links Hummingbird, NIO and the metrics libraries.
        .target(
            name: "PushKitFreeServer",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeTransport", "PushKitFreeMCP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Sources/PushKitFreeServer"
        ),

        // MARK: Tools
        // Each light tool's command line is a module of its own (its internal names stay its own);
        // the pushkit-free program below is all four.
        .target(
            name: "APNsJWTCommand",
            dependencies: [
                // The transport only for `check --online`: libcurl is loaded when that runs, not at start.
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeCLI", "PushKitFreeTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/APNsJWTCommand"
        ),
        // `register-apns channel ...` sends channel management requests: the transport module is
        // linked, libcurl itself is loaded only when one of them sends (see bench/README.md for the
        // start-up cost).
        .target(
            name: "RegisterAPNsCommand",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeCLI", "PushKitFreeTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/RegisterAPNsCommand"
        ),
        .target(
            name: "SendPushCommand",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeCLI", "PushKitFreeTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/SendPushCommand"
        ),
        // Asks a question through `register-apns serve` and waits for the answer (HTTP/1.1 over the
        // transport module's libcurl, loaded when it first asks).
        .target(
            name: "AskPushCommand",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeCLI", "PushKitFreeTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/AskPushCommand"
        ),
        // apns-jwt, register-apns and send-push in one program, the tool chosen by argv[0]; its
        // tools' modules are those tools.list gives it.
        .executableTarget(
            name: "pushkit-free",
            dependencies: toolModules(of: "pushkit-free") + ["PushKitFreeCLI"],
            path: "Sources/pushkit-free",
            linkerSettings: startupLinkerSettings + exportNghttp2Interposers
        ),
        // The command lines of the three tools that serve, each a module of its own like the light
        // tools'; the pushkit-free-server program below is all three.
        // `register-apns serve` runs register-apns-serve (see RegisterAPNs.Serve), so that
        // register-apns itself does not link the server's libraries and starts as fast as before.
        .target(
            name: "RegisterAPNsServeCommand",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeCLI", "PushKitFreeServer", "PushKitFreeTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/RegisterAPNsServeCommand"
        ),
        // The agent tools over MCP's stdio transport.
        .target(
            name: "PushKitMCPCommand",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeCLI", "PushKitFreeMCP", "PushKitFreeTransport",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/PushKitMCPCommand"
        ),
        .target(
            name: "APNsEmulatorCommand",
            dependencies: [
                "PushKitFreeCore", "PushKitFreeCLI", "PushKitFreeEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/APNsEmulatorCommand"
        ),
        // register-apns-serve, apns-emulator and pushkit-mcp in one program, the tool chosen by
        // argv[0]: they share NIO, TLS and (the endpoint and the agent tools) the MCP SDK with the
        // Foundation and ICU it brings, which would otherwise ship twice (docs/internals.md).
        .executableTarget(
            name: "pushkit-free-server",
            dependencies: toolModules(of: "pushkit-free-server") + ["PushKitFreeCLI"],
            path: "Sources/pushkit-free-server",
            linkerSettings: startupLinkerSettings + exportNghttp2Interposers
        ),

        // MARK: Tests
        // What each fuzz target checks for one input: test code, not part of any tool. The corpus
        // replay (FuzzHarnessTests) and the fuzz package's libFuzzer programs both run it. Its
        // dependencies are the modules whose parsers read outside input.
        .target(
            name: "FuzzHarness",
            dependencies: ["PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeEmulator", "PushKitFreeServer"],
            path: "Tests/FuzzHarness"
        ),
        .testTarget(
            name: "PushKitFreeCoreTests",
            // The registry too: the send pipeline's tests use the state file as its DeviceDirectory.
            dependencies: [
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeTimeZones", "PushKitFreeTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/PushKitFreeCoreTests"
        ),
        .testTarget(
            name: "PushKitFreeTimeZonesTests",
            dependencies: ["PushKitFreeTimeZones", "PushKitFreeCore"],
            path: "Tests/PushKitFreeTimeZonesTests"
        ),
        // What the core's, the registry's and the CLI's tests share: a hand-set clock, tokens,
        // registrations, a scripted transport.
        .target(
            name: "PushKitFreeTestSupport",
            dependencies: ["PushKitFreeCore", "PushKitFreeRegistry"],
            path: "Tests/PushKitFreeTestSupport"
        ),
        .testTarget(
            name: "PushKitFreeRegistryTests",
            dependencies: [
                "PushKitFreeRegistry", "PushKitFreeCore", "PushKitFreeTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/PushKitFreeRegistryTests"
        ),
        .testTarget(
            name: "PushKitFreeCLITests",
            dependencies: [
                "PushKitFreeCLI", "PushKitFreeCore", "PushKitFreeTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/PushKitFreeCLITests"
        ),
        .testTarget(
            name: "PushKitFreeEmulatorTests",
            dependencies: [
                "PushKitFreeEmulator", "PushKitFreeCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // A local HTTP/1.1 server standing in for serve's answer route.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/PushKitFreeEmulatorTests"
        ),
        .testTarget(
            name: "FuzzHarnessTests",
            dependencies: ["FuzzHarness", "PushKitFreeCore", "PushKitFreeRegistry"],
            path: "Tests/FuzzHarnessTests"
        ),
        .testTarget(
            name: "PushKitFreeServerTests",
            dependencies: [
                "PushKitFreeServer", "PushKitFreeCore", "PushKitFreeRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Tests/PushKitFreeServerTests"
        ),
        .testTarget(
            name: "PushKitFreeMCPTests",
            dependencies: [
                "PushKitFreeMCP", "PushKitFreeCore", "PushKitFreeRegistry", .product(name: "MCP", package: "swift-sdk"),
            ],
            path: "Tests/PushKitFreeMCPTests"
        ),
        .testTarget(
            name: "PushKitFreeTransportTests",
            dependencies: [
                "PushKitFreeTransport", "PushKitFreeCore", "PushKitFreeEmulator",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/PushKitFreeTransportTests"
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "pushkit-free", "pushkit-free-server",
                "PushKitFreeCore", "PushKitFreeRegistry", "PushKitFreeCLI", "PushKitFreeEmulator",
            ],
            path: "Tests/EndToEndTests",
            // Read from the source tree by the golden tests (RepositoryFiles), not bundled.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
