import Dispatch
import PushKitFreeCore
import PushKitFreeMCP
import PushKitFreeTransport

/// The agent tools' questions in `pushkit-mcp`: serve's question routes over HTTP
/// (`QuestionsClient`), at the `endpoint` with the secret in `endpoint_secret_file`.
///
/// Each request blocks a thread for as long as serve holds it (up to 55 seconds while waiting for
/// an answer), so requests run on a queue of their own, never on Swift's cooperative pool; the
/// queue is concurrent, so asking or cancelling does not wait behind a `wait_for_answer`.
final class RemoteQuestionDesk: QuestionDesk {
    private let client: QuestionsClient
    private let secretFile: Setting<String>
    private let queue = DispatchQueue(label: "pushkit-mcp.questions", attributes: .concurrent)

    /// A desk at `access`'s endpoint.
    /// - Throws: `LibcurlUnavailable` (exit 69) when libcurl cannot be loaded.
    init(access: EndpointAccess, configuration: Configuration) throws {
        client = try QuestionsClient(
            access: access, caFile: configuration.caFile?.value, proxy: configuration.proxy?.value)
        secretFile = access.secretFile
    }

    func ask(_ body: [String: JSONValue]) async throws -> JSONValue {
        try await onQueue { [client] in .object(try client.ask(.object(body))) }
    }

    func status(of id: String, wait: Int) async throws -> JSONValue {
        try await onQueue { [client] in .object(try client.status(of: id, wait: wait)) }
    }

    func cancel(_ id: String) async throws -> JSONValue {
        try await onQueue { [client] in .object(try client.cancel(id)) }
    }

    /// Runs `work` on the queue, its errors as `QuestionDeskError`s an agent can read.
    private func onQueue(_ work: @escaping @Sendable () throws -> JSONValue) async throws -> JSONValue {
        let result = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Swift.Result { try work() }) }
        }
        do {
            return try result.get()
        } catch let refusal as EndpointRefusal {
            if refusal.refusedSecret {
                throw QuestionDeskError(
                    status: refusal.status,
                    message: "\(client.baseURL) refused the secret in \(secretFile.value) (\(secretFile.source)); "
                        + "it must be the secret register-apns serve was started with")
            }
            throw QuestionDeskError(
                status: refusal.status, message: refusal.message,
                state: refusal.status == 409 ? refusal.body?["state"]?.stringValue : nil)
        } catch let failure as EndpointClientError {
            throw QuestionDeskError(
                status: failure.kind == .timeout ? 504 : 502,
                message: "\(failure.description); the question, if asked, is kept: try again")
        } catch let error as any PushKitError {
            throw QuestionDeskError(status: 500, message: error.description)
        }
    }
}
