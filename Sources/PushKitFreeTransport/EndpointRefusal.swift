import PushKitFreeCore

/// An answer of `register-apns serve` that is not the one asked for: its status and the sentence
/// of its `{"error": ...}` body.
package struct EndpointRefusal: PushKitError, Equatable {
    /// The HTTP status.
    package let status: Int
    /// The server's `error` member (control characters escaped), or a sentence naming the status.
    package let message: String
    /// The whole body when it is a JSON object (a 409's status members, for one).
    package let body: [String: JSONValue]?
    /// Whether the secret was refused (401, 403).
    package var refusedSecret: Bool { status == 401 || status == 403 }

    /// The refusal in `body`, an answer with `status` from `origin`.
    package init(status: Int, body: [String: JSONValue]?, origin: String) {
        self.status = status
        self.body = body
        if let error = body?["error"]?.stringValue, !error.isEmpty {
            message = TerminalText.escaped(error)
        } else {
            message = "\(origin) answered HTTP \(status)"
        }
    }

    /// 78 for a refused secret, 65 for a question or answer the server found wrong (400, 404,
    /// 409, 410, 422), 75 for a server that asks to come back later (429, 503, 504), 69 else.
    package var exitStatus: ExitStatus {
        switch status {
        case 401, 403: .configuration
        case 400, 404, 409, 410, 422: .dataError
        case 429, 503, 504: .temporaryFailure
        default: .unavailable
        }
    }

    /// Whether waiting may go on (serve is restarting or overloaded; the question is kept).
    package var isPassing: Bool { [429, 502, 503, 504].contains(status) }

    /// The message.
    package var description: String { message }
}
