import APNsEmulatorCommand
import PushKitFreeCLI
import PushKitMCPCommand
import RegisterAPNsServeCommand

// One program for the three tools that serve, chosen by the name it is called by (argv[0]):
// `register-apns-serve` (what `register-apns serve` runs), `apns-emulator` and `pushkit-mcp` are
// links to it. They share SwiftNIO, swift-nio-ssl, swift-crypto and the Swift runtime, and the
// endpoint and the agent tools share the MCP SDK with the Foundation and ICU data it brings, the
// largest part of all (docs/internals.md, "One program, several names"). The light tools stay in
// `pushkit-free`, whose start-up pays for none of it.
await MultiCallProgram<() async -> Void>(
    name: "pushkit-free-server",
    tools: [
        ("register-apns-serve", RegisterAPNsServeTool.main),
        ("apns-emulator", { APNsEmulatorTool.main() }),
        ("pushkit-mcp", PushKitMCPTool.main),
    ],
    sibling: ("pushkit-free", ["apns-jwt", "register-apns", "send-push", "ask-push"])
).selectedTool()()
