#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CCurlShim
import PushKitFreeCore

/// One libcurl easy handle and the buffers its callbacks fill; reused across requests so a fan-out
/// allocates handles only up to the number in flight.
final class Transfer {
    let handle: UnsafeMutableRawPointer
    private(set) var tag = 0
    /// The method the handle is set up for; changed only when a request needs another, so pushes
    /// (all POST) never pay for it.
    private var method = HTTP2Method.post
    /// When the current request was handed to libcurl.
    var startedAt = ContinuousClock.now
    /// Counts the requests this handle was set up for: tells a request from the handle's later ones.
    private(set) var request = 0
    /// Whether the handle is in the multi handle (its request not yet reported).
    var inFlight = false
    private var responseBody = Data()
    private var responseHeaders: [String: String] = [:]
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    /// The dictionary key for this transfer: the easy handle's address.
    var key: Int { Int(bitPattern: handle) }

    /// - Parameters: the per-client settings, set once per handle rather than once per request.
    init(caFile: String?, proxy: String?, connectTimeout: Duration) {
        handle = curl_easy_init()
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let context = Unmanaged.passUnretained(self).toOpaque()
        pushkit_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        pushkit_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, Transfer.receiveBody)
        pushkit_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        pushkit_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, Transfer.receiveHeader)
        pushkit_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        pushkit_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        CurlTrust.apply(caFile: caFile, proxy: proxy, to: handle)
        // APNs answers are tiny; libcurl's minimum receive buffer keeps a 10,000-device fan-out small.
        pushkit_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 1024)
        pushkit_easy_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, 16 * 1024) // libcurl's minimum; payloads are ≤ 5 KB
        pushkit_easy_setopt_long(handle, CURLOPT_POST, 1)
        // Whichever proxy applies, tunnel through it (CONNECT), also for plain-http prior-knowledge
        // URLs that an HTTP proxy would otherwise be asked to fetch itself in HTTP/1.1. SOCKS
        // proxies always tunnel; the option does not concern them.
        pushkit_easy_setopt_long(handle, CURLOPT_HTTPPROXYTUNNEL, 1)
        // The proxy's "200 Connection established" is not APNs' answer; keep it out of the headers.
        pushkit_easy_setopt_long(handle, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        pushkit_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout))
    }

    /// Frees the easy handle; the transfer must not be in a multi handle.
    func close() {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Points the handle at `request`.
    /// - Parameter headerList: the request's headers as a curl list, owned by the caller and kept
    ///   alive until the transfer is done (one list is shared by every request of a batch).
    func configure(for request: HTTP2Request, headerList: UnsafeMutablePointer<curl_slist>?) {
        tag = request.tag
        self.request += 1
        responseBody.removeAll(keepingCapacity: true)
        responseHeaders.removeAll(keepingCapacity: true)
        errorBuffer[0] = 0
        let priorKnowledge = request.url.hasPrefix("http://")
        pushkit_easy_setopt_long(
            handle, CURLOPT_HTTP_VERSION,
            priorKnowledge ? Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) : Int(CURL_HTTP_VERSION_2TLS))
        // libcurl 7.88 cannot reuse a prior-knowledge connection (curl issue #10634, fixed in 8.0):
        // there each plain-http request gets a connection of its own, one after the other.
        let ownConnection = priorKnowledge && CurlGlobal.priorKnowledgeReuseIsBroken
        pushkit_easy_setopt_long(handle, CURLOPT_FRESH_CONNECT, ownConnection ? 1 : 0)
        pushkit_easy_setopt_long(handle, CURLOPT_FORBID_REUSE, ownConnection ? 1 : 0)
        pushkit_easy_setopt_long(handle, CURLOPT_PIPEWAIT, ownConnection ? 0 : 1)
        request.url.withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_URL, $0) }
        pushkit_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        if request.method != method { use(request.method) }
        guard method == .post else { return }

        // COPYPOSTFIELDS: libcurl keeps its own copy, so no Swift buffer has to outlive this call.
        pushkit_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count)
        request.body.withUnsafeBytes { buffer in
            _ = pushkit_easy_setopt_pointer(
                handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
        }
    }

    /// Switches the handle to `method`: POST with a body, GET, or DELETE without one.
    private func use(_ method: HTTP2Method) {
        self.method = method
        switch method {
        case .post:
            pushkit_easy_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, nil)
            pushkit_easy_setopt_long(handle, CURLOPT_POST, 1)
        case .get:
            pushkit_easy_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, nil)
            pushkit_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case .delete:
            pushkit_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
            "DELETE".withCString { _ = pushkit_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, $0) }
        }
    }

    /// The outcome once libcurl reports the transfer done with `code`.
    func finish(code: CURLcode) -> Result<HTTP2Answer, TransportFailure> {
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            var kind = Self.classify(code)
            // A proxy that refused the CONNECT (or could not reach APNs) never let anything through:
            // libcurl reports it as a receive error, but it is a failure to connect.
            var connectCode = 0
            pushkit_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
            if connectCode != 0 && !(200..<300).contains(connectCode) { kind = .connect }
            return .failure(TransportFailure(kind: kind, code: Int32(code.rawValue), message: message))
        }
        var status = 0
        pushkit_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTP2Answer(status: status, headers: responseHeaders, body: responseBody))
    }

    static func classify(_ code: CURLcode) -> TransportFailure.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_PROXY:
            return .connect
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CRL_BADFILE:
            return .tls
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .connectionLost
        default:
            return .other
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(0, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    private static let receiveBody: pushkit_curl_data_callback = { buffer, size, count, context in
        let length = size * count
        guard let buffer, let context else { return length }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        transfer.responseBody.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }

    private static let receiveHeader: pushkit_curl_data_callback = { buffer, size, count, context in
        let length = size * count
        guard let buffer, let context else { return length }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
        if bytes.starts(with: "HTTP/".utf8) {
            transfer.responseHeaders.removeAll(keepingCapacity: true) // a new response (after 100 Continue)
        } else if Transfer.isKept(bytes), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            // Only the headers delivery reads are kept: one small string per answer, not one per line.
            let name = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
            var value = bytes[(colon + 1)...]
            while let first = value.first, first == UInt8(ascii: " ") { value = value.dropFirst() }
            while let last = value.last, last == 0x0d || last == 0x0a || last == UInt8(ascii: " ") {
                value = value.dropLast()
            }
            transfer.responseHeaders[name] = String(decoding: value, as: UTF8.self)
        }
        return length
    }

    /// Whether a header line starts with `apns-` (any case), the only response headers APNs clients
    /// need, or is `Retry-After`, which FCM sends with a 429 or 503.
    private static func isKept(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count > 5 else { return false }
        if zip(line.prefix(5), "apns-".utf8).allSatisfy({ $0 | 0x20 == $1 }) { return true }
        return line.count > 12 && zip(line.prefix(12), "retry-after:".utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}
