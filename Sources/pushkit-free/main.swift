import APNsJWTCommand
import AskPushCommand
import PushKitFreeCLI
import RegisterAPNsCommand
import SendPushCommand

// One program for the light tools, chosen by the name it is called by (argv[0]), the way busybox
// works: `apns-jwt`, `register-apns`, `send-push` and `ask-push` are links to it. They share nearly all
// of their code (the core, the registry, argument parsing, swift-crypto and the Swift runtime), so
// one copy of it ships instead of four (docs/internals.md, "One program, several names").
// `pushkit-free TOOL ARGUMENTS...` runs the same way, for a copy without the links.
MultiCallProgram(
    name: "pushkit-free",
    tools: [
        ("apns-jwt", APNsJWTTool.main),
        ("register-apns", RegisterAPNsTool.main),
        ("send-push", SendPushTool.main),
        ("ask-push", AskPushTool.main),
    ],
    sibling: ("pushkit-free-server", ["register-apns-serve", "apns-emulator", "pushkit-mcp"])
).selectedTool()()
