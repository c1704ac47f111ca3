import ArgumentParser
import MCP
import PushKitFreeCLI
import PushKitFreeCore
import PushKitFreeMCP
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `pushkit-mcp`: the agent tools (`notify`, `list_devices`) as an MCP server on standard input
/// and output, for an agent client that starts it (Claude Desktop, Claude Code, ...).
struct PushKitMCP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushkit-mcp",
        abstract: "Serve the notify and list_devices tools to an AI agent over MCP (standard input and output).",
        discussion: """
            An agent client starts this program and speaks MCP (JSON-RPC) on its standard input and output; \
            it is not for a terminal. Tools: notify (title, body, subtitle, urgency, url, data, device or \
            group, collapse_id, badge) sends through the same pipeline as send-push, with the same \
            configuration, registry and policy; list_devices lists the registered devices, tokens masked. \
            Warnings go to standard error. register-apns serve offers the same tools over HTTP at /mcp. \
            One JSON-RPC message a line, at most 1 MiB: a longer line, or one that is not one request or \
            notification, is answered with a JSON-RPC error (id null) and skipped. When standard input \
            closes, every request read is answered before the program exits.
            Exit: 0 when the client closes standard input, 64 usage, 66 a file it is given is missing, \
            78 configuration.
            """,
        version: PushKitFree.version
    )

    /// The name messages start with.
    static let tool = "pushkit-mcp"

    @OptionGroup var options: SharedOptions
    @OptionGroup(title: "Delivery") var delivery: DeliveryOptions<RequestDeliveryDefaults>

    func run() async throws {
        let host: LocalToolHost
        do {
            let configuration = try ToolSupport.configuration(options.flags, tool: Self.tool)
            let policy = try NotificationPolicy(configuration: configuration)
            host = LocalToolHost(
                configuration: configuration, notificationPolicy: policy, deliveryPolicy: try delivery.policy(),
                tool: Self.tool)
        } catch {
            throw ToolSupport.exitCode(for: error, tool: Self.tool)
        }
        let server = await AgentServer.make(AgentTools(host: host))
        do {
            try await server.start(transport: StandardIOTransport())
        } catch {
            StandardStreams.writeError("\(Self.tool): cannot read standard input: \(error)\n")
            throw ExitCode(ExitStatus.ioError.rawValue)
        }
        await server.waitUntilCompleted()
        host.close()
    }
}

/// `pushkit-mcp`'s entry point: the server program (Sources/pushkit-free-server) runs it when
/// called by that name.
package enum PushKitMCPTool {
    package static func main() async { await PushKitMCP.main() }
}
