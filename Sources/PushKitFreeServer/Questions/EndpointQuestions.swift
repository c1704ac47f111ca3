#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOPosix
import PushKitFreeCore
import PushKitFreeRegistry
import ServiceLifecycle
import Synchronization

/// The endpoint's questions: asking (`POST /v1/questions`), reading and waiting, cancelling, the
/// phone's answer, and expiry. The question store (`QuestionStore`) holds every state; this type
/// holds no question in memory, so a restart loses nothing and two servers on one store agree.
///
/// A service of the endpoint's application: the store is read and written on a thread of its own
/// (a `NIOThreadPool` of one thread, off the event loops), and `run()` is the expiry loop, which
/// records each pending question as expired when its time comes and replaces its notification.
///
/// Fail closed: a question the phone did not answer is never an answer. A pending question whose
/// time is up reads as expired even before the loop records it, and an answer after that is 410.
final class EndpointQuestions: Service, Sendable {
    let store: any QuestionStore
    private let registrations: DeviceRegistrations
    private let sender: NotificationSender
    /// `--public-url`: the origin phones reach the endpoint at; `nil`: the asking request's host.
    private let publicURL: String?
    /// The allowance of failed answers (a wrong token), shared with failed authentications.
    private let failures: RateLimiter
    private let signals = QuestionSignals()
    private let thread = NIOThreadPool(numberOfThreads: 1)
    private let warn: @Sendable (String) -> Void
    /// The expiry loop's last warning, so a store that keeps failing is named once.
    private let lastWarning = Mutex<String?>(nil)

    /// How often a waiting request looks at the store for a change another server made.
    static let pollInterval = Duration.seconds(1)
    /// How often the expiry loop looks for questions another server added.
    static let expiryPollInterval = Duration.seconds(5)
    /// The longest `?wait=`.
    static let waitLimit = 60
    /// The most requests waiting at once; past it a `?wait=` answers at once.
    static let waiterLimit = 512
    /// The key the expiry loop waits on.
    private static let expiryKey = ""

    init(
        store: any QuestionStore, registrations: DeviceRegistrations, sender: NotificationSender, publicURL: String?,
        failures: RateLimiter, warn: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.registrations = registrations
        self.sender = sender
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.failures = failures
        self.warn = warn
    }

    // MARK: The service

    /// Runs the expiry loop until the application's graceful shutdown.
    func run() async throws {
        thread.start()
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                let next: Date?
                do {
                    next = try await expireDue()
                    lastWarning.withLock { $0 = nil }
                } catch {
                    // Said once while the store keeps failing the same way, not every few seconds.
                    let warning = "questions: \(Self.logDetail(error))"
                    if lastWarning.withLock({ last in
                        defer { last = warning }
                        return last != warning
                    }) {
                        warn(warning)
                    }
                    next = nil
                }
                let wait = next.map { Duration.seconds(max(0, $0.timeIntervalSinceNow)) } ?? Self.expiryPollInterval
                await signals.wait(for: Self.expiryKey, upTo: min(wait + .milliseconds(5), Self.expiryPollInterval))
            }
        }
        try? await thread.shutdownGracefully()
    }

    /// Records the questions whose time is up as expired, forgets those settled a week ago, and
    /// sends the expired ones' notices.
    /// - Returns: the next expiry of a pending question.
    private func expireDue() async throws -> Date? {
        let now = Date()
        let (expired, next) = try await onStore { store -> ([Question], Date?) in
            // Read first: the lock is taken only when there is something to record or forget.
            var read = try store.load()
            guard !read.expireDue(at: now).isEmpty || read.purge(at: now) > 0 else { return ([], read.nextExpiry) }
            return try store.update { book in
                let expired = book.expireDue(at: now)
                book.purge(at: now)
                return (expired, book.nextExpiry)
            }
        }
        for question in expired {
            signals.signal(question.id)
            await sendNotice(question)
        }
        return next
    }

    // MARK: Asking

    /// What `ask` answers: the question and the devices its push was delivered to.
    struct Asked: Sendable {
        let question: Question
        let devices: [String]
    }

    /// Asks `request` on the devices it names: records the question, then sends each device its
    /// own push (its own answer token), and records which were delivered.
    /// - Parameter origin: the asking request's `scheme://host`, for the answer URL when there is no
    ///   `--public-url`.
    /// - Throws: `EndpointError` 404 for an unknown device or group (or none registered), 429 past
    ///   `QuestionBook.pendingLimit`, 502 when no device accepted the push (the question is then
    ///   cancelled), the send's error when it was refused for every device (cancelled too).
    func ask(_ request: QuestionRequest, origin: String?) async throws(EndpointError) -> Asked {
        guard let base = publicURL ?? origin else {
            throw .badRequest("the server does not know its public address: start it with --public-url")
        }
        let devices = try audience(of: request)
        let now = Date()
        let id = Self.randomHex(bytes: 16)
        var tokens: [String: String] = [:]
        var recipients: [Question.Recipient] = []
        for device in devices {
            let token = Self.randomToken()
            tokens[device.id] = token
            recipients.append(
                Question.Recipient(deviceID: device.id, name: device.record.name, tokenDigest: HexDigest.sha256(token)))
        }
        let question = Question(
            id: id, title: request.title, body: request.body, form: request.form, urgency: request.urgency,
            encrypt: request.encrypt, createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(request.timeout)),
            recipients: recipients)
        let added = try await storing { store in try store.update { book in book.add(question, at: now) } }
        guard added else {
            throw EndpointError(
                status: 429,
                "\(QuestionBook.pendingLimit) questions are pending already; cancel some (DELETE /v1/questions/{id})",
                headers: ["Retry-After": "60"])
        }
        signals.signal(Self.expiryKey)
        let answerURL = "\(base)/v1/questions/\(id)/answer"
        var delivered: [String] = []
        var failures: [String] = []
        // A send refused for one device (an FCM device on a server without a Firebase account) is
        // that device's failure: the others still get the question. When every device's send was
        // refused so, the first refusal is the answer (503: sending is not possible).
        var firstRefusal: EndpointError?
        var reachedProvider = false
        for device in devices {
            let spec = QuestionPush.question(question, answerURL: answerURL, token: tokens[device.id] ?? "")
            let report: DeliveryReport
            do throws(EndpointError) {
                report = try await sender.send(spec, urgency: request.urgency, to: .init(deviceIDs: [device.id]))
            } catch {
                if error.status.code == 404 { continue } // removed since: it cannot answer
                failures.append("\(device.id): \(error.message)")
                firstRefusal = firstRefusal ?? error
                continue
            }
            reachedProvider = true
            for result in report.results {
                if result.outcome == .delivered {
                    delivered.append(device.id)
                } else {
                    failures.append("\(device.id): \(EndpointJSON.reason(of: result))")
                }
            }
        }
        guard !delivered.isEmpty else {
            try? await withdraw(id)
            if !reachedProvider, let firstRefusal { throw firstRefusal }
            throw EndpointError(
                status: 502,
                "the question reached no device, so it was withdrawn: "
                    + (failures.isEmpty ? "every device was removed" : failures.joined(separator: "; ")))
        }
        let reached = Set(delivered)
        try await storing { store in try store.update { book in book.markDelivered(reached, question: id) } }
        return Asked(question: question, devices: delivered)
    }

    /// Asks the question `json` describes (`QuestionRequest`): what `POST /v1/questions` and the
    /// agent tool `ask` at `/mcp` do.
    /// - Returns: `{"id", "expires_at", "devices"}`.
    func ask(json: JSONValue, origin: String?) async throws(EndpointError) -> JSONValue {
        let asked = try await ask(try QuestionRequest(json), origin: origin)
        return [
            "id": .string(asked.question.id),
            "expires_at": .string(ISO8601Timestamp.format(asked.question.expiresAt)),
            "devices": .array(asked.devices.map(JSONValue.string)),
        ]
    }

    /// The devices a question goes to: the one named, the group's, or every device.
    private func audience(of request: QuestionRequest) throws(EndpointError) -> [RegisteredDevice] {
        let registry = try registrations.read()
        let all = registry.devices
        if let device = request.device {
            guard let found = all.first(where: { $0.id == device }) else {
                throw .deviceNotFound("no device \"\(TerminalText.field(device))\" is registered")
            }
            return [found]
        }
        if let group = request.group {
            let members = all.filter { $0.record.groups.contains(group) }
            guard !members.isEmpty else {
                throw .deviceNotFound("no device is in group \"\(TerminalText.field(group))\"")
            }
            return members
        }
        guard !all.isEmpty else {
            throw .deviceNotFound("no devices are registered: the app registers itself when it starts")
        }
        return all
    }

    /// Cancels a question that never reached a device, without a notice.
    private func withdraw(_ id: String) async throws {
        let now = Date()
        _ = try await onStore { store in try store.update { book in book.cancel(id, at: now) } }
        signals.signal(id)
    }

    // MARK: Reading, waiting, cancelling

    /// The question `id` as it is at `now`; with `wait`, held until it is no longer pending or
    /// `wait` passes.
    /// - Throws: 404 for an unknown id.
    func status(_ id: String, wait: Duration = .zero) async throws(EndpointError) -> JSONValue {
        let deadline = ContinuousClock.now + wait
        while true {
            let question = try await storing { store in try store.load()[id] }
            guard let question else { throw .notFound("no question \"\(TerminalText.field(id))\"") }
            let now = Date()
            let remaining = deadline - ContinuousClock.now
            if question.state(at: now) != .pending || remaining <= .zero || Task.isCancelled
                || signals.count >= Self.waiterLimit
            {
                return Self.status(question, at: now)
            }
            let untilExpiry = Duration.seconds(max(0, question.expiresAt.timeIntervalSince(now))) + .milliseconds(5)
            await signals.wait(for: id, upTo: min(remaining, Self.pollInterval, untilExpiry))
        }
    }

    /// Cancels a pending question and replaces its notification.
    /// - Returns: the status; `settled` when it had been answered or had expired (nothing changed).
    func cancel(_ id: String) async throws(EndpointError) -> (status: JSONValue, settled: Bool) {
        let now = Date()
        let outcome = try await storing { store in try store.update { book in book.cancel(id, at: now) } }
        switch outcome {
        case .unknownQuestion: throw .notFound("no question \"\(TerminalText.field(id))\"")
        case .cancelled(let question):
            signals.signal(id)
            noticeLater(question)
            return (Self.status(question, at: now), false)
        case .alreadyCancelled(let question): return (Self.status(question, at: now), false)
        case .settled(let question): return (Self.status(question, at: now), true)
        }
    }

    // MARK: Answering

    /// The phone's answer, with the answer token its push carried. The client's allowance of
    /// failures is looked at before the token, and a wrong token spends from it.
    /// - Returns: the question's status; with `conflict`, the sentence of the 409 when it was
    ///   answered before (the status then shows the answer that won).
    /// - Throws: 429 past the allowance, 403 for a wrong token, 404 for an unknown question, 410
    ///   when it expired or was cancelled, 422 for an answer that does not fit it.
    func answer(
        _ id: String, token: String, choice: String?, text: String?, client: String
    ) async throws(EndpointError) -> (status: JSONValue, conflict: String?) {
        try admitAnswer(from: client)
        let now = Date()
        let outcome = try await storing { store in
            try store.update { book in book.answer(id, token: token, choice: choice, text: text, at: now) }
        }
        switch outcome {
        case .accepted(let question):
            signals.signal(id)
            noticeLater(question)
            return (Self.status(question, at: now), nil)
        case .unknownQuestion:
            _ = failures.admit(client)
            throw .notFound("no question \"\(TerminalText.field(id))\"")
        case .wrongToken:
            _ = failures.admit(client)
            throw EndpointError(status: 403, "the answer token is not this question's")
        case .settled(let question):
            let state = question.state(at: now)
            if state == .answered {
                return (
                    Self.status(question, at: now), "the question was answered already" + Self.describe(question.answer)
                )
            }
            throw EndpointError(status: 410, "the question \(state == .expired ? "expired" : "was cancelled")")
        case .unfit(let message):
            throw EndpointError(status: 422, message)
        }
    }

    /// Refuses (429) a client past its allowance of failures, before its answer is read.
    func admitAnswer(from client: String) throws(EndpointError) {
        if let retryAfter = failures.exhausted(client) {
            throw .rateLimited(retryAfter: retryAfter, limit: failures.perMinute, what: "failed answers")
        }
    }

    private static func describe(_ answer: Question.Answer?) -> String {
        guard let answer else { return "" }
        if let choice = answer.choice { return " (\"\(choice)\", from \(answer.deviceID))" }
        return " (a typed reply, from \(answer.deviceID))"
    }

    // MARK: Notices

    /// Sends the settled notice in the background: the answer is not held up by the send.
    private func noticeLater(_ question: Question) {
        Task { await self.sendNotice(question) }
    }

    /// Replaces the question's notification on each device it was delivered to that is still
    /// registered; a failure is logged, never answered.
    private func sendNotice(_ question: Question) async {
        let delivered = question.recipients.filter(\.delivered).map(\.deviceID)
        guard !delivered.isEmpty else { return }
        let registered: [String]
        do {
            let devices = try registrations.read()
            registered = delivered.filter { devices[$0] != nil }
        } catch {
            warn("question \(question.id): the settled notice was not sent: \(error.message)")
            return
        }
        guard !registered.isEmpty else { return }
        do {
            _ = try await sender.send(QuestionPush.settled(question), to: .init(deviceIDs: registered))
        } catch {
            warn("question \(question.id): the settled notice was not sent: \(error.message)")
        }
    }

    // MARK: Helpers

    /// The status body: `{"id", "title", "state", "expires_at", "answer"?}`.
    static func status(_ question: Question, at now: Date) -> JSONValue {
        let state = question.state(at: now)
        var object: [String: JSONValue] = [
            "id": .string(question.id), "title": .string(question.title), "state": .string(state.rawValue),
            "expires_at": .string(ISO8601Timestamp.format(question.expiresAt)),
        ]
        if state == .answered, let answer = question.answer { object["answer"] = answer.json }
        return .object(object)
    }

    /// Runs `work` on the store's thread, its errors as the endpoint answers them.
    private func storing<T: Sendable>(
        _ work: @escaping @Sendable (any QuestionStore) throws -> T
    ) async throws(EndpointError) -> T {
        do {
            return try await onStore(work)
        } catch let error as RegistryError {
            throw Self.storeError(error)
        } catch {
            throw .internalError("the questions cannot be read or stored", logDetail: "\(error)")
        }
    }

    private func onStore<T: Sendable>(_ work: @escaping @Sendable (any QuestionStore) throws -> T) async throws -> T {
        let store = self.store
        return try await thread.runIfActive { try work(store) }
    }

    static func storeError(_ error: RegistryError) -> EndpointError {
        let message = "the questions cannot be read or stored: \(error.publicSummary)"
        if case .databaseUnavailable = error {
            return EndpointError(
                status: 503, message, headers: ["Retry-After": String(EndpointError.databaseRetryAfter)],
                logDetail: error.description)
        }
        return .internalError(message, logDetail: error.description)
    }

    private static func logDetail(_ error: any Error) -> String {
        (error as? EndpointError).map { $0.logDetail ?? $0.message } ?? "\(error)"
    }

    /// `count` bytes from the system's random source.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `bytes` random bytes as lowercase hex.
    static func randomHex(bytes count: Int) -> String {
        HexDigest.hex(randomBytes(count))
    }

    /// An answer token: 32 random bytes, base64url without padding (43 characters).
    static func randomToken() -> String {
        Base64URL.encode(randomBytes(32))
    }
}
