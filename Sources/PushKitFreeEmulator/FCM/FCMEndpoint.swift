#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import Synchronization

/// Google's side of FCM HTTP v1, played on the emulator's port: the OAuth token endpoint
/// (`POST /token`) for the emulator's service account and `POST /v1/projects/{id}/messages:send`.
///
/// It issues access tokens (random, good for 3,599 seconds) for assertions `FCMAssertionCheck`
/// accepts, and takes sends that carry one of them, for its own project, with a message
/// `FCMMessageJudge` accepts. `--script-file` steps for registration tokens answer their FCM errors,
/// and a token unregistered by `--unregistered` or `POST /emulator/unregister/<token>` answers
/// `UNREGISTERED`.
/// Every answer is recorded (`"provider": "fcm"`), never the assertion or the access token.
/// Thread-safe; the same for HTTP/2 and HTTP/1.1 connections.
package final class FCMEndpoint: Sendable {
    /// An answer and what to record about it.
    package struct Response: Sendable {
        /// The HTTP status.
        package var status: Int
        /// Headers besides `content-type` and `content-length`.
        package var headers: [(String, String)]
        /// The JSON body.
        package var body: [UInt8]
        /// The `--record` line, newline included.
        package var recordLine: [UInt8]
        /// The one-line summary for standard error, newline included.
        package var summary: String
        /// Whether the request succeeded (counted as accepted).
        package var accepted: Bool
    }

    /// What the token endpoint and the send route have seen, for `GET /emulator/status`.
    package struct Counters: Sendable, Equatable {
        /// `POST /token` requests, good or bad.
        package var tokenRequests = 0
        /// Access tokens issued.
        package var tokensIssued = 0
        /// `messages:send` requests.
        package var sends = 0
        /// Sends answered 200 and not `validate_only`.
        package var delivered = 0

        /// Counters with these values.
        package init(tokenRequests: Int = 0, tokensIssued: Int = 0, sends: Int = 0, delivered: Int = 0) {
            self.tokenRequests = tokenRequests
            self.tokensIssued = tokensIssued
            self.sends = sends
            self.delivered = delivered
        }
    }

    /// The path of the token endpoint.
    package static let tokenPath = "/token"
    /// How long an access token lives, in seconds (Google answers `expires_in` 3599).
    package static let tokenLifetime = 3599
    private static let sendPrefix = "/v1/projects/"
    private static let sendSuffix = "/messages:send"

    /// The service account the emulator trusts.
    package let account: EmulatorServiceAccount
    private let state: EmulatorState?
    private let tokenURIStore: Mutex<String>
    private let tokens = Mutex<[String: Date]>([:])
    private let counterStore = Mutex(Counters())

    /// An endpoint for `account` whose token URI is `tokenURI` (the `aud` assertions must name).
    /// - Parameter state: the emulator's state, for `--script-file` steps and counters.
    init(account: EmulatorServiceAccount, tokenURI: String, state: EmulatorState?) {
        self.account = account
        self.state = state
        tokenURIStore = Mutex(tokenURI)
    }

    /// An endpoint for `account` whose token URI is `tokenURI`, with no scripts and no shared
    /// counters (for tests of the judgment alone).
    package convenience init(account: EmulatorServiceAccount, tokenURI: String) {
        self.init(account: account, tokenURI: tokenURI, state: nil)
    }

    /// The token URI assertions must name as `aud`.
    package var tokenURI: String {
        get { tokenURIStore.withLock { $0 } }
        set { tokenURIStore.withLock { $0 = newValue } }
    }

    /// The counters so far.
    package var counters: Counters { counterStore.withLock { $0 } }

    /// Whether `path` belongs to FCM (the token endpoint or the v1 API).
    package static func serves(path: String) -> Bool {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return route == tokenPath || route.hasPrefix("/v1/")
    }

    /// Answers one request.
    /// - Parameters:
    ///   - headers: the request headers, names in lowercase.
    ///   - connection, stream: where it came from, for the record.
    package func respond(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8], connection: Int,
        stream: Int, now: Date = Date()
    ) -> Response {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        var record = FCMRequestRecord(connection: connection, stream: stream, method: method, path: path)
        let response: Response
        if route == Self.tokenPath {
            record.kind = "token"
            response = token(method: method, headers: headers, body: body, record: &record, now: now)
        } else {
            record.kind = "send"
            response = send(method: method, route: route, headers: headers, body: body, record: &record, now: now)
        }
        state?.didAnswer(accepted: response.accepted, recordLine: response.recordLine)
        return response
    }

    /// Answers a request whose body passed the connection's limit before it ended: 400
    /// `INVALID_ARGUMENT` (a message that large is far over the payload limit), recorded.
    package func respondTooLarge(
        method: String, path: String, bodySize: Int, connection: Int, stream: Int
    )
        -> Response
    {
        var record = FCMRequestRecord(connection: connection, stream: stream, method: method, path: path)
        record.kind = path.hasPrefix(Self.tokenPath) ? "token" : "send"
        let response = googleError(
            .badMessage("Request body too large: \(bodySize) bytes or more.", field: nil), record: &record)
        state?.didAnswer(accepted: false, recordLine: response.recordLine)
        return response
    }

    // MARK: The token endpoint

    private func token(
        method: String, headers: [(name: String, value: String)], body: [UInt8], record: inout FCMRequestRecord,
        now: Date
    ) -> Response {
        counterStore.withLock { $0.tokenRequests += 1 }
        guard method == "POST" else {
            return oauthError(405, "invalid_request", "Only POST is supported.", record: &record)
        }
        let form = Self.formFields(body)
        guard let grantType = form["grant_type"] else {
            return oauthError(400, "invalid_request", "Missing required parameter: grant_type", record: &record)
        }
        guard grantType == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(grantType)", record: &record)
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return oauthError(400, "invalid_request", "Missing required parameter: assertion", record: &record)
        }
        let check = FCMAssertionCheck(account: account, tokenURI: tokenURI)
        switch check.check(assertion, now: now) {
        case .failure(let refusal):
            return oauthError(400, refusal.error, refusal.description, record: &record)
        case .success(let claims):
            record.issuer = claims.issuer
            record.scope = claims.scopes.joined(separator: " ")
            let accessToken = Self.newAccessToken()
            tokens.withLock { tokens in
                tokens = tokens.filter { $0.value > now }
                tokens[accessToken] = now.addingTimeInterval(TimeInterval(Self.tokenLifetime))
            }
            counterStore.withLock { $0.tokensIssued += 1 }
            let body = JSONValue.object([
                "access_token": .string(accessToken), "expires_in": .number(Double(Self.tokenLifetime)),
                "token_type": .string("Bearer"),
            ])
            record.status = 200
            return finish(200, headers: [], body: Array(body.serialized()), record: record, accepted: true)
        }
    }

    /// A new access token: `ya29.` (as Google's begin) and 256 random bits in hex.
    private static func newAccessToken() -> String {
        var random = SystemRandomNumberGenerator()
        let words = (0..<4).map { _ in random.next() as UInt64 }
        return "ya29.emulator-"
            + words.map { word in
                let hex = String(word, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
    }

    private func oauthError(
        _ status: Int, _ error: String, _ description: String, record: inout FCMRequestRecord
    ) -> Response {
        record.status = status
        record.errorStatus = error
        record.detail = description
        let body = JSONValue.object(["error": .string(error), "error_description": .string(description)])
        return finish(status, headers: [], body: Array(body.serialized()), record: record, accepted: false)
    }

    // MARK: Sending

    private func send(
        method: String, route: String, headers: [(name: String, value: String)], body: [UInt8],
        record: inout FCMRequestRecord, now: Date
    ) -> Response {
        guard route.hasPrefix(Self.sendPrefix), route.hasSuffix(Self.sendSuffix),
            route.utf8.count > Self.sendPrefix.utf8.count + Self.sendSuffix.utf8.count
        else {
            return googleError(
                FCMErrorAnswer(code: 404, status: "NOT_FOUND", message: "Method not found.", detail: .none),
                record: &record)
        }
        counterStore.withLock { $0.sends += 1 }
        let project = String(route.dropFirst(Self.sendPrefix.count).dropLast(Self.sendSuffix.count))
        record.projectID = project
        guard method == "POST" else {
            return googleError(
                FCMErrorAnswer(code: 404, status: "NOT_FOUND", message: "Method not found.", detail: .none),
                record: &record)
        }
        let authorization = headers.first { $0.name == "authorization" }?.value
        guard let authorization else {
            return googleError(
                FCMErrorAnswer(
                    code: 401, status: "UNAUTHENTICATED",
                    message:
                        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                    detail: .none), record: &record)
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        let accessToken = parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : nil
        let isLive = accessToken.map { token in tokens.withLock { ($0[token] ?? .distantPast) > now } } ?? false
        guard isLive else {
            return googleError(
                FCMErrorAnswer(
                    code: 401, status: "UNAUTHENTICATED",
                    message:
                        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                    detail: .none), record: &record)
        }
        guard project == account.projectID else {
            return googleError(
                FCMErrorAnswer(
                    code: 403, status: "PERMISSION_DENIED",
                    message:
                        "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
                    detail: .none), record: &record)
        }
        let accepted: FCMMessageJudge.Accepted
        switch FCMMessageJudge.judge(body) {
        case .failure(let answer):
            return googleError(answer, record: &record)
        case .success(let value):
            accepted = value
        }
        record.target = accepted.target
        record.validateOnly = accepted.validateOnly
        record.message = accepted.message
        record.payloadBytes = accepted.payloadBytes
        if accepted.validateOnly {
            record.status = 200
            record.detail = "validate_only: judged, not delivered"
            let name = JSONValue.object(["name": .string("projects/\(project)/messages/fake_message_id")])
            return finish(200, headers: [], body: Array(name.serialized()), record: record, accepted: true)
        }
        if case .token(let token) = accepted.target, let state {
            if let step = state.scriptStep(forAccepted: token), case .fcm(let errorCode) = step,
                let answer = FCMErrorAnswer.scripted(errorCode)
            {
                record.detail = "--script-file"
                return googleError(answer, record: &record)
            }
            if state.isUnregistered(token), let answer = FCMErrorAnswer.scripted("UNREGISTERED") {
                record.detail = "scripted: unregistered"
                return googleError(answer, record: &record)
            }
        }
        counterStore.withLock { $0.delivered += 1 }
        var random = SystemRandomNumberGenerator()
        let messageID = "0:\(Int64(now.timeIntervalSince1970 * 1000))%\(String(random.next(), radix: 16))"
        record.status = 200
        record.messageID = messageID
        let name = JSONValue.object(["name": .string("projects/\(project)/messages/\(messageID)")])
        return finish(200, headers: [], body: Array(name.serialized()), record: record, accepted: true)
    }

    private func googleError(_ answer: FCMErrorAnswer, record: inout FCMRequestRecord) -> Response {
        record.status = answer.code
        record.errorStatus = answer.status
        record.errorCode = answer.errorCode
        if record.detail == nil { record.detail = answer.message }
        let headers = answer.retryAfter.map { [("retry-after", String($0))] } ?? []
        return finish(answer.code, headers: headers, body: answer.body(), record: record, accepted: false)
    }

    private func finish(
        _ status: Int, headers: [(String, String)], body: [UInt8], record: FCMRequestRecord, accepted: Bool
    ) -> Response {
        var record = record
        record.time = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        return Response(
            status: status, headers: headers, body: body, recordLine: record.jsonLine(), summary: record.summary(),
            accepted: accepted)
    }

    /// The fields of an `application/x-www-form-urlencoded` body (the last of repeated names).
    static func formFields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]) else { continue }
            fields[name] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return fields
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                    let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
                else { return nil }
                output.append(value)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(validating: output, as: UTF8.self)
    }
}
