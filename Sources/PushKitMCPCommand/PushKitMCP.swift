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

/// `pushkit-mcp`: the agent tools (`notify`, `withdraw`, `list_devices`, the question tools) as an MCP server on
/// standard input and output, for an agent client that starts it (Claude Desktop, Claude Code, ...).
struct PushKitMCP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushkit-mcp",
        abstract: "Serve the push and question tools to an AI agent over MCP (standard input and output).",
        discussion: """
            An agent client starts this program and speaks MCP (JSON-RPC) on its standard input and output; \
            it is not for a terminal. Tools: notify (title, body, subtitle, urgency, url, data, device or \
            group, collapse_id, badge) sends through the same pipeline as send-push, with the same \
            configuration, registry and policy; withdraw (id, device or group) takes back a notification \
            notify sent with that collapse_id, with a silent push the app removes it on; list_devices lists \
            the registered devices, tokens masked. \
            ask, wait_for_answer and cancel_question ask a question on the phone and read its answer through \
            register-apns serve: they need endpoint (--endpoint, PUSHKIT_ENDPOINT) and endpoint_secret_file \
            (--secret-file, PUSHKIT_ENDPOINT_SECRET_FILE). \
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
    @OptionGroup(title: "Questions") var endpoint: EndpointOptions

    /// Serve's question routes when an endpoint is configured; `nil` (the question tools say how to
    /// set one) when not. An endpoint without a readable secret is a configuration error.
    static func questionDesk(_ configuration: Configuration) throws -> (any QuestionDesk)? {
        guard configuration.endpoint != nil else { return nil }
        let access = try EndpointAccess.resolve(configuration)
        for warning in access.warnings { ToolSupport.warn(warning, tool: tool) }
        return try RemoteQuestionDesk(access: access, configuration: configuration)
    }

    func run() async throws {
        let host: LocalToolHost
        do {
            var flags = options.flags
            endpoint.apply(to: &flags)
            let configuration = try ToolSupport.configuration(flags, tool: Self.tool)
            let policy = try NotificationPolicy(configuration: configuration)
            host = LocalToolHost(
                configuration: configuration, notificationPolicy: policy, deliveryPolicy: try delivery.policy(),
                questions: try Self.questionDesk(configuration), tool: Self.tool)
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
