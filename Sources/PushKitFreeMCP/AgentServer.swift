import Foundation
import MCP
import PushKitFreeCore

/// An MCP server that offers `AgentTools`: what `pushkit-mcp` runs over standard input and output,
/// and what `register-apns serve` runs for each request to `/mcp`.
package enum AgentServer {
    /// The name the server gives itself in MCP's `initialize` answer.
    package static let name = "pushkit-free"

    /// What the server tells the agent about itself, in `initialize`.
    static let instructions = """
        Sends push notifications to the user's own iPhone or iPad. Call list_devices to see the \
        devices and groups, then notify. Relay the result's sentence to the user.
        """

    /// A server with the tools' handlers, not started.
    package static func make(_ tools: AgentTools) async -> Server {
        let server = Server(
            name: name, version: PushKitFree.version, title: "pushkit-free push notifications",
            instructions: instructions,
            capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: AgentTools.definitions)
        }
        await server.withMethodHandler(CallTool.self) { parameters in
            await tools.call(parameters.name, arguments: parameters.arguments)
        }
        return server
    }

    /// Answers one request to `/mcp`: MCP's streamable HTTP without sessions, each request with a
    /// server of its own (the tools keep no state between calls), its answer JSON, never a stream.
    ///
    /// The body must be one JSON-RPC request or notification from the client (`jsonrpc` "2.0", a
    /// `method`, a string or integer `id` when it has one, `params` an object): anything else is 400
    /// with a JSON-RPC error here, before the SDK sees it. A request still unanswered at `deadline`
    /// is 500. `MCP-Protocol-Version`, when sent, must be one the SDK supports (400).
    ///
    /// Origin and `Host` are not checked, nor `Accept` and `Content-Type` (the endpoint reads every
    /// body as JSON, whatever it is said to be): the route needs the server's secret, which a web
    /// page cannot send, and that is what guards it against DNS rebinding.
    package static func answer(_ request: HTTPRequest, tools: AgentTools, deadline: Duration) async -> HTTPResponse {
        if let refusal = refusal(of: request.body ?? Data()) { return refusal }
        let transport = StatelessHTTPServerTransport(
            validationPipeline: StandardValidationPipeline(validators: [ProtocolVersionValidator()]))
        let server = await make(tools)
        do {
            try await server.start(transport: transport)
        } catch {
            return .error(statusCode: 500, .internalError("the MCP server could not start"))
        }
        // Stopping the server ends the wait of `handleRequest` (500).
        let timer = Task {
            try await Task.sleep(for: deadline)
            await server.stop()
        }
        let response = await transport.handleRequest(request)
        timer.cancel()
        await server.stop()
        return response
    }

    /// The 400 for a body that is not one JSON-RPC request or notification from a client; `nil`
    /// for one that is.
    static func refusal(of body: Data) -> HTTPResponse? {
        problem(in: body).map { .error(statusCode: 400, $0) }
    }

    /// Why `message` is not one JSON-RPC request or notification from a client: a parse error or an
    /// invalid request, for an answer with a `null` id; `nil` when it is one. The same rule over
    /// HTTP and standard input, so the SDK gets only messages it answers once each (a request) or
    /// not at all (a notification).
    package static func problem(in message: Data) -> MCPError? {
        let parsed: JSONValue
        do throws(JSONSyntaxError) {
            parsed = try JSONValue.parse(message)
        } catch {
            return .parseError("the message is not JSON: \(error.detail)")
        }
        return requestProblem(parsed).map { .invalidRequest($0) }
    }

    /// What makes a parsed message no request or notification; `nil` when it is one.
    private static func requestProblem(_ message: JSONValue) -> String? {
        switch message.objectValue {
        case nil: "a message must be one JSON-RPC message, an object (batches are not supported)"
        case let object? where object["jsonrpc"] != JSONValue.string("2.0"): "\"jsonrpc\" must be \"2.0\""
        case let object? where object["method"]?.stringValue == nil:
            "\"method\" must be a string: the server takes requests and notifications"
        case let object? where object["result"] != nil || object["error"] != nil:
            "a request has no \"result\" or \"error\""
        case let object? where !(object["id"].map(isRequestID) ?? true):
            "\"id\" must be a string or an integer"
        case let object? where !(object["params"].map { $0.objectValue != nil } ?? true):
            "\"params\" must be an object"
        default: nil
        }
    }

    /// Whether `id` is a JSON-RPC request id the SDK answers under: a string or an integer.
    private static func isRequestID(_ id: JSONValue) -> Bool {
        if case .string = id { return true }
        guard let integer = id.integerValue else { return false }
        return Int64(exactly: integer) != nil
    }
}
