#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The methods the APNs APIs use: POST for pushes and channel creation, GET and DELETE for
/// channel management.
public enum HTTP2Method: String, Sendable, Equatable {
    case post = "POST"
    case get = "GET"
    case delete = "DELETE"
}

/// One HTTP/2 request for `CurlHTTP2Client`: a POST for every push, GET or DELETE for channel
/// management.
public struct HTTP2Request: Sendable {
    /// The full URL, e.g. `https://api.push.apple.com/3/device/<token>`.
    public var url: String
    /// The method; the body is sent only with POST.
    public var method: HTTP2Method
    /// Request headers in order, names lowercase as HTTP/2 requires.
    public var headers: [(name: String, value: String)]
    /// The request body.
    public var body: Data
    /// The caller's identifier for this request; echoed in its `HTTP2Response`.
    public var tag: Int

    public init(
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
public struct HTTP2Response: Sendable {
    public let tag: Int
    public let result: Result<HTTP2Answer, TransportFailure>

    public init(tag: Int, result: Result<HTTP2Answer, TransportFailure>) {
        self.tag = tag
        self.result = result
    }
}

/// An HTTP answer: status, response headers (names lowercased) and body.
public struct HTTP2Answer: Sendable, Equatable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A request that got no HTTP answer, classified so delivery can decide what to do.
public struct TransportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Name resolution or TCP connect failed: the service is unreachable.
        case connect
        /// TLS handshake or certificate verification failed.
        case tls
        /// The request did not finish before its deadline.
        case timeout
        /// The connection broke or was closed (reset, GOAWAY, stream error) before an answer.
        case connectionLost
        /// Anything else libcurl reported.
        case other
    }

    public let kind: Kind
    /// libcurl's `CURLcode`, or 0 when the failure was decided here (the deadline passed before sending).
    public let code: Int32
    /// libcurl's message for the failure.
    public let message: String

    public init(kind: Kind, code: Int32, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
