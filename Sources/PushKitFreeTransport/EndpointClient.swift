#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CCurlShim
import PushKitFreeCore

/// An HTTP/1.1 client for `register-apns serve`'s guarded routes: one request at a time, each on a
/// libcurl easy handle of its own (`curl_easy_perform`), with `Authorization: Bearer <secret>`.
///
/// - HTTP/1.1 only, plain or TLS: serve speaks no HTTP/2, so there is no prior knowledge here.
/// - A connect timeout and an overall timeout per request; the answer's body is read up to
///   `bodyLimit` bytes and the request fails as `.tooLarge` past it.
/// - Peer and host verification are always on; `caFile` adds a CA to the system's trust store.
/// - `proxy` is set as `CURLOPT_PROXY`; without it libcurl applies `http_proxy`, `https_proxy`,
///   `all_proxy` and `no_proxy` from the environment itself (`ProxyResolution` says which). An
///   `https://` endpoint is reached through a CONNECT tunnel, so a proxy never sees the secret.
/// - `shouldStop`, asked about once a second while a request may be stopped, ends it early as
///   `.interrupted` (SIGINT while waiting for an answer).
///
/// The secret is never logged: libcurl's verbose output stays off, and errors carry libcurl's
/// message and the URL's origin only.
package final class EndpointClient: @unchecked Sendable {
    /// A request method the question routes use.
    package enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case delete = "DELETE"
    }

    /// An answer: the status and the body (at most `bodyLimit` bytes).
    package struct Response: Sendable {
        /// The HTTP status.
        package let status: Int
        /// The body as received.
        package let body: Data
    }

    /// The endpoint's base URL without a trailing `/`, e.g. `http://127.0.0.1:8100`.
    package let baseURL: String
    private let authorization: String
    private let caFile: String?
    private let proxy: String?
    private let connectTimeout: Duration
    /// The largest answer body read, in bytes.
    package let bodyLimit: Int

    /// A client for `baseURL` presenting `secret`.
    /// - Throws: `LibcurlUnavailable` (exit 69) when libcurl cannot be loaded.
    package init(
        baseURL: String, secret: String, caFile: String?, proxy: String?, connectTimeout: Duration = .seconds(10),
        bodyLimit: Int = 1 << 20
    ) throws(LibcurlUnavailable) {
        try CurlGlobal.load()
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        self.baseURL = String(base)
        authorization = "Authorization: Bearer \(secret)"
        self.caFile = caFile
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        self.bodyLimit = bodyLimit
    }

    /// Sends one request to `baseURL + path` and waits for its answer, at most `timeout` in all.
    ///
    /// - Parameters:
    ///   - body: sent as `application/json` (POST only).
    ///   - shouldStop: asked about once a second; `true` ends the request as `.interrupted`.
    /// - Throws: `EndpointClientError` when no complete answer came.
    package func send(
        _ method: Method, _ path: String, body: Data? = nil, timeout: Duration,
        shouldStop: @escaping () -> Bool = { false }
    ) throws(EndpointClientError) -> Response {
        let exchange = Exchange(bodyLimit: bodyLimit, shouldStop: shouldStop)
        guard let handle = curl_easy_init() else {
            throw EndpointClientError(kind: .other, message: "libcurl could not make a handle", origin: baseURL)
        }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer {
            curl_easy_cleanup(handle)
            curl_slist_free_all(headers)
        }
        let url = baseURL + path
        for line in [authorization, "Accept: application/json", "Expect:"]
            + (body != nil ? ["Content-Type: application/json"] : [])
        {
            headers = line.withCString { curl_slist_append(headers, $0) }
        }
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        pushkit_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, exchange.errorBuffer)
        pushkit_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, Self.receiveBody)
        pushkit_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        pushkit_easy_setopt_progress_callback(handle, CURLOPT_XFERINFOFUNCTION, Self.progress)
        pushkit_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        pushkit_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        pushkit_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        pushkit_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        // Only http and https, also for a redirect (none is followed: the routes never redirect).
        "http,https".withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, $0) }
        pushkit_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        pushkit_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Transfer.milliseconds(connectTimeout))
        pushkit_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, Transfer.milliseconds(timeout)))
        CurlTrust.apply(caFile: caFile, proxy: proxy, to: handle)
        // An https endpoint through an HTTP proxy: a CONNECT tunnel, TLS end to end. A plain-http one
        // is asked of the proxy as an ordinary HTTP/1.1 request.
        pushkit_easy_setopt_long(handle, CURLOPT_HTTPPROXYTUNNEL, url.hasPrefix("https://") ? 1 : 0)
        pushkit_easy_setopt_long(handle, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        url.withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_URL, $0) }
        pushkit_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
        switch method {
        case .get:
            pushkit_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case .delete:
            "DELETE".withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, $0) }
        case .post:
            // One byte more than the body, so even an empty body has an address to give libcurl.
            var bytes = [UInt8](body ?? Data())
            let count = bytes.count
            bytes.append(0)
            pushkit_easy_setopt_long(handle, CURLOPT_POST, 1)
            pushkit_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, count)
            // COPYPOSTFIELDS: libcurl keeps its own copy, so no Swift buffer has to outlive this call.
            bytes.withUnsafeMutableBytes { buffer in
                _ = pushkit_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, buffer.baseAddress)
            }
        }

        let code = withExtendedLifetime(exchange) { curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            throw exchange.failure(code: code, handle: handle, origin: baseURL)
        }
        var status = 0
        pushkit_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return Response(status: status, body: exchange.body)
    }

    /// The body callback: keeps up to `bodyLimit` bytes; past it, stops the transfer.
    private static let receiveBody: pushkit_curl_data_callback = { buffer, size, count, context in
        let length = size * count
        guard let buffer, let context else { return length }
        let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
        guard exchange.body.count + length <= exchange.bodyLimit else {
            exchange.tooLarge = true
            return 0 // CURLE_WRITE_ERROR
        }
        exchange.body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }

    /// The progress callback: stops the transfer once `shouldStop` says so.
    private static let progress: pushkit_curl_progress_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
        guard exchange.shouldStop() else { return 0 }
        exchange.stopped = true
        return 1
    }
}

/// One request's buffers, which libcurl's callbacks fill.
private final class Exchange {
    let bodyLimit: Int
    let shouldStop: () -> Bool
    var body = Data()
    var tooLarge = false
    var stopped = false
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(bodyLimit: Int, shouldStop: @escaping () -> Bool) {
        self.bodyLimit = bodyLimit
        self.shouldStop = shouldStop
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// The failure libcurl reported with `code`, classified.
    func failure(code: CURLcode, handle: UnsafeMutableRawPointer, origin: String) -> EndpointClientError {
        if stopped { return EndpointClientError(kind: .interrupted, message: "stopped", origin: origin) }
        if tooLarge {
            return EndpointClientError(
                kind: .tooLarge, message: "the answer is larger than \(bodyLimit) bytes", origin: origin)
        }
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        var kind: EndpointClientError.Kind
        switch Transfer.classify(code) {
        case .connect: kind = .unreachable
        case .tls: kind = .tls
        case .timeout: kind = .timeout
        case .connectionLost: kind = .connectionLost
        case .interrupted, .other: kind = .other
        }
        var connectCode = 0
        pushkit_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
        if connectCode != 0 && !(200..<300).contains(connectCode) { kind = .unreachable }
        return EndpointClientError(kind: kind, message: message, origin: origin)
    }
}

/// A request to the endpoint that got no complete answer.
package struct EndpointClientError: PushKitError, Equatable {
    /// Why no answer came, which decides whether waiting goes on and the exit status.
    package enum Kind: String, Sendable {
        /// Name resolution, TCP connect or the proxy failed: serve is not there (or not yet back).
        case unreachable
        /// The TLS handshake or certificate verification failed.
        case tls
        /// No answer within the request's timeout.
        case timeout
        /// The connection broke before the whole answer came.
        case connectionLost
        /// The answer's body was larger than the client reads.
        case tooLarge
        /// `shouldStop` ended the request.
        case interrupted
        /// Anything else libcurl reported.
        case other
    }

    /// Why no answer came.
    package let kind: Kind
    /// libcurl's message.
    package let message: String
    /// The endpoint's base URL.
    package let origin: String

    /// An error of `kind` for a request to `origin`.
    package init(kind: Kind, message: String, origin: String) {
        self.kind = kind
        self.message = message
        self.origin = origin
    }

    /// 75 (try again later) for a timeout or a broken connection, 65 for an oversized answer, 69 else.
    package var exitStatus: ExitStatus {
        switch kind {
        case .timeout, .connectionLost: .temporaryFailure
        case .tooLarge: .dataError
        case .unreachable, .tls, .interrupted, .other: .unavailable
        }
    }

    /// Whether waiting may go on: serve may be restarting, and the question is kept across restarts.
    package var isPassing: Bool { kind == .unreachable || kind == .timeout || kind == .connectionLost }

    /// `cannot reach URL: <libcurl's message>`, and the like.
    package var description: String {
        switch kind {
        case .unreachable: "cannot reach \(origin): \(message)"
        case .tls: "TLS with \(origin) failed: \(message) (set ca_file to the CA that signed serve's certificate)"
        case .timeout: "no answer from \(origin) in time: \(message)"
        case .connectionLost: "the connection to \(origin) broke: \(message)"
        case .tooLarge: "\(origin) answered with more than expected: \(message)"
        case .interrupted: "the request to \(origin) was interrupted"
        case .other: "the request to \(origin) failed: \(message)"
        }
    }
}
