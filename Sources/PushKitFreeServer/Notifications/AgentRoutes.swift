import HTTPTypes
import Hummingbird
import MCP
import NIOCore
import PushKitFreeCore
import PushKitFreeMCP

/// `POST /mcp`: the agent tools (`notify`, `list_devices`) over MCP's streamable HTTP, for an agent
/// on another machine; the same tools `pushkit-mcp` serves on standard input and output.
///
/// In the guarded group: the secret as `Authorization: Bearer`, like every route that sends. The
/// MCP SDK's stateless transport answers each JSON-RPC request with JSON; there are no sessions
/// and no server-sent events, so `GET` and `DELETE` are 405.
struct AgentRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let registrations: DeviceRegistrations
    let sender: NotificationSender
    /// The endpoint's questions, for `ask`, `wait_for_answer` and `cancel_question`.
    let questions: EndpointQuestions
    /// Whether the endpoint serves HTTPS, for a question's answer URL built from the request's host.
    let tls: Bool
    /// How long a request may wait for its answer: the longer of a send's `--timeout` and
    /// `wait_for_answer`'s longest wait, and `deadlineMargin`.
    let deadline: Duration

    /// The largest JSON-RPC message accepted: a tool call with a full notification fits many times.
    static let bodyLimit = 16 * 1024

    /// How much longer than a send may take (`--timeout`) a request may wait for its answer: the
    /// sends queued on the delivery thread before it.
    static let deadlineMargin = Duration.seconds(30)

    func add(to groups: EndpointRouteGroups) {
        groups.guarded.post("mcp", use: answer)
    }

    @Sendable func answer(_ request: Hummingbird.Request, context: Context) async throws -> Hummingbird.Response {
        let body = try await request.bodyBytes(limit: Self.bodyLimit)
        var headers: [String: String] = [:]
        // The secret stays here: the MCP layer never sees `Authorization` (nor OpenClaw's header).
        for field in request.headers where field.name != .authorization && field.name.canonicalName != "x-openclaw-auth"
        {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        let tools = AgentTools(
            host: EndpointToolHost(
                registrations: registrations, sender: sender, requestID: context.requestID,
                questions: EndpointQuestionDesk(
                    questions: questions, origin: QuestionRoutes.origin(of: request, tls: tls))))
        let answer = await AgentServer.answer(
            MCP.HTTPRequest(method: request.method.rawValue, headers: headers, body: body, path: request.uri.path),
            tools: tools, deadline: deadline)
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        let bytes = answer.bodyData.map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        return Hummingbird.Response(
            status: HTTPTypes.HTTPResponse.Status(code: answer.statusCode), headers: fields,
            body: ResponseBody(byteBuffer: bytes))
    }
}
