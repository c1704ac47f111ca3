import Foundation
import MCP
import Synchronization

/// The requests a client sent that have not been answered yet, and whether its input has ended:
/// what `StandardIOTransport` keeps so that it ends only once every request read is answered.
///
/// A request counts from the moment its line is read, before the server sees it, until an answer
/// with its id is written, or the client cancels it (a cancelled request may go unanswered). Ids
/// are the SDK's own `ID`, decoded as the SDK decodes them, so a request counts exactly when the
/// SDK will answer under that id.
package final class PendingRequests: Sendable {
    private struct State {
        var counts: [ID: Int] = [:]
        var inputEnded = false
    }

    private let state = Mutex(State())

    /// No requests yet, input open.
    package init() {}

    /// The id of `message` when it is a request (a `method` and an `id` the SDK reads), else `nil`.
    package static func requestID(of message: Data) -> ID? {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: message), envelope.method != nil else {
            return nil
        }
        return envelope.id
    }

    /// The id of `message` when it is an answer (an `id` and no `method`), else `nil`.
    package static func answerID(of message: Data) -> ID? {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: message), envelope.method == nil else {
            return nil
        }
        return envelope.id
    }

    /// The request `notifications/cancelled` cancels, when `message` is one.
    package static func cancelledID(of message: Data) -> ID? {
        guard let cancellation = try? JSONDecoder().decode(Cancellation.self, from: message),
            cancellation.method == CancelledNotification.name
        else { return nil }
        return cancellation.params.requestId
    }

    /// A request read.
    package func received(_ id: ID) {
        state.withLock { $0.counts[id, default: 0] += 1 }
    }

    /// A request answered, or cancelled by the client.
    /// - Returns: whether that was the last one and the input has ended: time to stop.
    package func settled(_ id: ID) -> Bool {
        state.withLock { state in
            if let count = state.counts[id] { state.counts[id] = count > 1 ? count - 1 : nil }
            return state.inputEnded && state.counts.isEmpty
        }
    }

    /// The input ended.
    /// - Returns: whether no request is waiting for its answer: time to stop.
    package func endInput() -> Bool {
        state.withLock { state in
            state.inputEnded = true
            return state.counts.isEmpty
        }
    }

    /// The members that tell a request, a notification and an answer apart.
    private struct Envelope: Decodable {
        let id: ID?
        let method: String?
    }

    /// `notifications/cancelled` and the request it names.
    private struct Cancellation: Decodable {
        struct Parameters: Decodable {
            let requestId: ID
        }

        let method: String
        let params: Parameters
    }
}
