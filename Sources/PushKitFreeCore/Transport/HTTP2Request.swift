#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The methods the APNs APIs use: POST for pushes and channel creation, GET and DELETE for
/// channel management.
package enum HTTP2Method: String, Sendable, Equatable {
    case post = "POST"
    case get = "GET"
    case delete = "DELETE"
}

/// One HTTP/2 request for `CurlHTTP2Client`: a POST for every push, GET or DELETE for channel
/// management.
package struct HTTP2Request: Sendable {
    /// The full URL, e.g. `https://api.push.apple.com/3/device/<token>`.
    package var url: String
    /// The method; the body is sent only with POST.
    package var method: HTTP2Method
    /// Request headers in order, names lowercase as HTTP/2 requires.
    package var headers: [(name: String, value: String)]
    /// The request body.
    package var body: Data
    /// The caller's identifier for this request; echoed in its `HTTP2Response`.
    package var tag: Int

    /// A request; a POST unless `method` says otherwise.
    package init(
        url: String, headers: [(name: String, value: String)], body: Data, tag: Int, method: HTTP2Method = .post
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.tag = tag
    }
}

/// The answer to one `HTTP2Request`: an HTTP status with headers and body, or a transport failure.
package struct HTTP2Response: Sendable {
    /// The `tag` of the request this answers.
    package let tag: Int
    /// The HTTP answer, or why there was none.
    package let result: Result<HTTP2Answer, TransportFailure>

    /// The response to the request tagged `tag`.
    package init(tag: Int, result: Result<HTTP2Answer, TransportFailure>) {
        self.tag = tag
        self.result = result
    }
}

/// An HTTP answer: status, response headers (names lowercased) and body.
package struct HTTP2Answer: Sendable, Equatable {
    /// The HTTP status, e.g. 200.
    package let status: Int
    /// The response headers by name, names lowercase (e.g. `apns-id`).
    package let headers: [String: String]
    /// The response body; for an APNs error, a JSON object with its `reason`.
    package let body: Data

    /// An answer as received.
    package init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A request that got no HTTP answer, classified so delivery can decide what to do.
package struct TransportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it was, which decides whether it is retried and the exit status.
    package enum Kind: String, Sendable {
        /// Name resolution or TCP connect failed: the service is unreachable.
        case connect
        /// TLS handshake or certificate verification failed.
        case tls
        /// The request did not finish before its deadline.
        case timeout
        /// The run was interrupted (SIGINT, SIGTERM) while the request was in flight: APNs may or
        /// may not have taken it.
        case interrupted
        /// The connection broke or was closed (reset, GOAWAY, stream error) before an answer.
        case connectionLost
        /// Anything else libcurl reported.
        case other
    }

    /// What kind of failure it was.
    package let kind: Kind
    /// libcurl's `CURLcode`, or 0 when the failure was decided here (the deadline passed before sending).
    package let code: Int32
    /// libcurl's message for the failure.
    package let message: String

    /// A failure as classified by the transport.
    package init(kind: Kind, code: Int32, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
