import Hummingbird
import PushKitFreeCore

/// `/v1/questions`: an agent or a script asks the phone, and the phone answers.
///
/// - `POST /v1/questions` (the secret): asks; 201 `{"id", "expires_at", "devices"}`.
/// - `GET /v1/questions/{id}` (the secret): the state and the answer; `?wait=S` (0 to 60) holds the
///   request until the question is settled or S seconds pass.
/// - `DELETE /v1/questions/{id}` (the secret): cancels; 409 when it was answered or expired.
/// - `POST /v1/questions/{id}/answer` (no secret: the answer token the question's push carried is
///   the capability, for this one question only): `{"token", "choice"}` or `{"token", "text"}`.
struct QuestionRoutes: Sendable {
    typealias Context = EndpointRequestContext
    let questions: EndpointQuestions
    /// Whether the endpoint serves HTTPS, for the answer URL built from the asking request's host.
    let tls: Bool

    /// The largest question body: four choices and a long body fit many times.
    static let bodyLimit = 16 * 1024
    /// The largest answer body: a typed reply of `textLimit` characters.
    static let answerBodyLimit = 12 * 1024
    /// The longest typed reply, in characters.
    static let textLimit = 2000

    func add(to groups: EndpointRouteGroups) {
        groups.guarded.post("v1/questions", use: ask)
        groups.guarded.get("v1/questions/:id", use: status)
        groups.guarded.delete("v1/questions/:id", use: cancel)
        groups.open.post("v1/questions/:id/answer", use: answer)
    }

    @Sendable func ask(_ request: Request, context: Context) async throws -> Response {
        let body = try Request.parseJSON(try await request.bodyBytes(limit: Self.bodyLimit))
        return .json(try await questions.ask(json: body, origin: Self.origin(of: request, tls: tls)), status: .created)
    }

    @Sendable func status(_ request: Request, context: Context) async throws -> Response {
        let wait = try Self.wait(request)
        return .json(try await questions.status(try Self.id(context), wait: .seconds(wait)))
    }

    @Sendable func cancel(_ request: Request, context: Context) async throws -> Response {
        let (status, settled) = try await questions.cancel(try Self.id(context))
        return Self.answer(
            status, conflict: settled ? "the question was \(status["state"]?.stringValue ?? "settled") already" : nil)
    }

    /// `status`, or with `conflict` a 409: the question's status members and `error` saying why.
    private static func answer(_ status: JSONValue, conflict: String?) -> Response {
        guard let conflict else { return .json(status) }
        var members = status.objectValue ?? [:]
        members["error"] = .string(conflict)
        return .json(.object(members), status: .conflict)
    }

    @Sendable func answer(_ request: Request, context: Context) async throws -> Response {
        // A client past its allowance of failures is refused before anything is read.
        try questions.admitAnswer(from: context.client)
        let id = try Self.id(context)
        let body = try Request.parseJSON(try await request.bodyBytes(limit: Self.answerBodyLimit))
        guard let object = body.objectValue else {
            throw EndpointError.badRequest("expected a JSON object, not \(body.typeName)")
        }
        if let unknown = object.keys.sorted().first(where: { !["token", "choice", "text"].contains($0) }) {
            throw EndpointError.badRequest(
                "unknown member \"\(TerminalText.field(unknown))\"; an answer takes token and choice or text")
        }
        guard let token = object["token"]?.stringValue, !token.isEmpty else {
            throw EndpointError.badRequest("an answer needs \"token\", the answer_token its push carried")
        }
        let choice = object["choice"]?.stringValue
        let text = object["text"]?.stringValue
        if object["choice"] != nil && choice == nil { throw EndpointError.badRequest("\"choice\" must be a string") }
        if object["text"] != nil && text == nil { throw EndpointError.badRequest("\"text\" must be a string") }
        if choice == nil && text == nil { throw EndpointError.badRequest("an answer needs \"choice\" or \"text\"") }
        if choice != nil && text != nil { throw EndpointError.badRequest("give \"choice\" or \"text\", not both") }
        if let text, text.unicodeScalars.count > Self.textLimit {
            throw EndpointError(status: 422, "\"text\" is longer than \(Self.textLimit) characters")
        }
        let (status, conflict) = try await questions.answer(
            id, token: token, choice: choice, text: text, client: context.client)
        return Self.answer(status, conflict: conflict)
    }

    /// `scheme://host` of the asking request, when its `Host` is a plain host name or address.
    static func origin(of request: Request, tls: Bool) -> String? {
        guard let host = request.head.authority, Self.isPlainHost(host) else { return nil }
        return "\(tls ? "https" : "http")://\(host)"
    }

    static func isPlainHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default: false
                }
            }
    }

    /// The path's question id: 32 lowercase hex digits.
    private static func id(_ context: Context) throws(EndpointError) -> String {
        try checkedID(context.parameters.get("id") ?? "")
    }

    /// `id` when it is a question id's shape; 404 naming it (shortened) otherwise.
    static func checkedID(_ id: String) throws(EndpointError) -> String {
        guard id.utf8.count == 32, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .notFound("no question \"\(TerminalText.field(String(id.prefix(64))))\"")
        }
        return id
    }

    /// `?wait=S`: whole seconds, 0 to `EndpointQuestions.waitLimit`; 0 when absent.
    private static func wait(_ request: Request) throws(EndpointError) -> Int {
        guard let text = request.uri.queryParameters.get("wait") else { return 0 }
        guard let seconds = Int(text), (0...EndpointQuestions.waitLimit).contains(seconds) else {
            throw .badRequest("wait must be a whole number of seconds from 0 to \(EndpointQuestions.waitLimit)")
        }
        return seconds
    }
}
