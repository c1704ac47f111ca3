#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdCore
import HTTPTypes
import NIOCore
import PushKitFreeCore

/// What `register-apns serve` does with each request: route, authenticate, rate-limit, read the
/// body, then register, list, remove or send. Every refusal is an `EndpointError` (a 4xx or 5xx
/// with `{"error": ...}`, plus `"detail"` on OpenClaw's routes) and changes nothing. A 5xx names
/// the request id, and only the server's log has what went wrong in full.
final class EndpointService: Sendable {
    /// The largest request body accepted; registration and notification bodies are far smaller.
    static let bodyLimit = 4096

    let settings: EndpointSettings
    let registry: DeviceRegistry
    let writes: RegistryWriteQueue
    let delivery: EndpointDelivery
    let limiter: RateLimiter
    let metrics: EndpointMetrics
    let health: EndpointHealth

    init(settings: EndpointSettings, delivery: EndpointDelivery, metrics: EndpointMetrics) {
        self.settings = settings
        registry = DeviceRegistry(path: settings.configuration.stateFile.value)
        writes = RegistryWriteQueue(registry: registry) { size in metrics.registryBatch(size: size) }
        self.delivery = delivery
        limiter = RateLimiter(perMinute: settings.rateLimit)
        self.metrics = metrics
        health = EndpointHealth(registry: registry, delivery: delivery) { line in
            StandardStreams.writeError("\(EndpointServer.tool): \(line)\n")
        }
    }

    /// What the access log and metrics need to know about a request, filled in while it is handled.
    final class Notes: @unchecked Sendable {
        var route: EndpointRoute?
        var token: DeviceToken?
        /// The request's id (`X-Request-Id`).
        var requestID = ""
        /// Let in without the secret because its peer is on an `--open-registration` network.
        var openNetwork = false
    }

    /// Answers one request. An error with a `logDetail` is written to standard error with the
    /// request id, which the answer names instead of the detail.
    func respond(to request: Request, client: String, notes: Notes) async -> Response {
        let error: EndpointError
        do {
            return try await handle(request, client: client, notes: notes)
        } catch let refusal as EndpointError {
            error = refusal
        } catch let unexpected {
            error = .internalError("the server failed to answer", logDetail: "unexpected error: \(unexpected)")
        }
        if let detail = error.logDetail {
            let path = AccessLog.maskedPath(request.uri.path)
            StandardStreams.writeError("\(EndpointServer.tool): error: request \(notes.requestID): "
                                       + "\(request.method.rawValue) \(path) \(error.status): "
                                       + "\(error.message): \(detail)\n")
        }
        let openClaw = notes.route?.isOpenClaw ?? request.uri.path.hasPrefix("/api/v1/")
        return Self.response(error.body(openClaw: openClaw, requestID: notes.requestID), status: error.status,
                             headers: error.headers)
    }

    /// How OpenClaw's routes show tokens, else the native mask.
    private static func tokens(_ route: EndpointRoute) -> EndpointJSON.TokenDisplay {
        route.isOpenClaw ? .openClaw : .masked
    }

    private func handle(_ request: Request, client: String, notes: Notes) async throws -> Response {
        let method = request.method.rawValue
        let path = request.uri.path
        let route: EndpointRoute
        let parameter: String?
        switch EndpointRoute.match(method: method, path: path) {
        case .notFound:
            throw EndpointError.notFound("no route \(method) \(path); see docs/openapi.yaml for the routes")
        case .methodNotAllowed(let allowed):
            throw EndpointError.methodNotAllowed(method, path: path, allowed: allowed)
        case .route(let matched, let value):
            route = matched
            parameter = value
        }
        notes.route = route
        notes.openNetwork = try authenticate(request, route: route, client: client)
        if route.registers, let retryAfter = limiter.admit(client) {
            throw EndpointError.rateLimited(retryAfter: retryAfter, limit: limiter.perMinute)
        }
        switch route {
        case .health:
            let problems = health.problems()
            if problems.isEmpty { return Self.response(["status": "healthy"]) }
            return Self.response(["status": "unhealthy", "error": .string(problems.joined(separator: "; ")),
                                  "problems": .array(problems.map(JSONValue.string))], status: 503)
        case .liveness:
            return Self.response(["status": "alive"])
        case .metrics:
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        case .listDevices:
            return Self.response(EndpointJSON.deviceList(try readRegistry().devices, tokens: Self.tokens(route)))
        case .unregisterDevice:
            return try await unregister(parameter ?? "", route: route, notes: notes)
        case .registerAPNs, .registerDevice:
            let body = try await readRegistrationBody(request, route: route)
            let registration = try Self.registration(body)
            notes.token = registration.token
            let outcome = try await register(registration, route: route)
            if route == .registerAPNs { return Self.response(["status": "ok"]) }
            return Self.response(["status": "registered",
                                  "device": EndpointJSON.device(outcome.device, tokens: Self.tokens(route))])
        case .deviceHook:
            return try await deviceHook(try await readJSON(request), notes: notes)
        case .registerSubscription:
            let subscription = try AgentSubscription.Request(try await readJSON(request))
            notes.token = subscription.registration.token
            _ = try await write { devices, now in .registered(subscription.apply(to: &devices, at: now)) }
            metrics.registered(route: route)
            return Self.response(["status": "subscribed", "agent": .string(subscription.agentKey),
                                  "device_id": .string(subscription.registration.deviceID)])
        case .sendToAll, .notifyHook:
            let notification = try NotificationRequestBody(try await readJSON(request))
            let report = try await delivery.send(notification.specification)
            metrics.delivered(report)
            if route == .notifyHook { return Self.response(["status": "sent", "devices_notified": .number(Double(report.delivered))]) }
            return Self.response(EndpointJSON.sendReport(report, tokens: Self.tokens(route)))
        case .sendToDevice:
            let notification = try NotificationRequestBody(try await readJSON(request))
            guard let device = Self.device(parameter ?? "", in: try readRegistry()) else {
                let shown = AccessLog.maskedPath(parameter ?? "")
                throw EndpointError.deviceNotFound("no device with token or id \"\(shown)\"")
            }
            notes.token = device.record.token
            // The pipeline reads the device again when it sends: it may be removed meanwhile (404).
            let report = try await delivery.send(notification.specification, to: PushSender.Audience(deviceIDs: [device.id]))
            metrics.delivered(report)
            guard let result = report.results.first else {
                throw EndpointError.deviceNotFound("device \(device.id) was removed before the notification was sent")
            }
            let json = EndpointJSON.result(result)
            return Self.response(["success": json["success"] ?? false, "apns_id": json["apns_id"] ?? .null, "reason": json["reason"] ?? .null])
        case .triggerReplyFinished:
            let reply = try AgentSubscription.ReplyFinished(try await readJSON(request))
            let agent = reply.agentKey
            let displayName = AgentSubscription.displayName(agentKey: agent, in: try readRegistry())
            let spec = reply.specification(displayName: displayName, serverKey: settings.secret?.serverKey)
            let report = try await delivery.send(spec, to: PushSender.Audience(groups: [agent]))
            metrics.delivered(report)
            return Self.response(["status": "sent", "agent": .string(agent), "devices_notified": .number(Double(report.delivered))])
        }
    }

    // MARK: Authentication

    /// Every route needs the secret, but the health checks, and registrations without credentials
    /// from an `--open-registration` network. `/metrics` needs it too, wherever the server listens:
    /// one rule that docs/openapi.yaml can state.
    /// - Returns: whether the request was let in for its network alone (no secret presented).
    private func authenticate(_ request: Request, route: EndpointRoute, client: String) throws(EndpointError) -> Bool {
        guard let secret = settings.secret else { return false }
        if route.isHealthCheck { return false }
        let presented = SharedSecret.presented(authorization: request.headers[.authorization],
                                               openClawAuth: request.headers[Self.openClawAuth])
        if presented == nil, route.acceptsOpenRegistration,
           settings.openRegistration.contains(where: { $0.contains(client) }) {
            return true
        }
        guard let presented else {
            throw .unauthorized("missing credentials: send Authorization: Bearer <secret> or X-OpenClaw-Auth: <secret>")
        }
        guard secret.matches(presented) else { throw .unauthorized("wrong secret") }
        return false
    }

    static let openClawAuth = HTTPField.Name("X-OpenClaw-Auth")!

    // MARK: Registry

    private func register(_ registration: DeviceRegistration, route: EndpointRoute) async throws -> RegisteredDevices.RegistrationOutcome {
        let result = try await write { devices, now in .registered(devices.register(registration, at: now)) }
        guard case .registered(let outcome) = result else {
            throw EndpointError.internalError("the registration was not recorded",
                                              logDetail: "the write queue answered \(result)")
        }
        metrics.registered(route: route)
        return outcome
    }

    private func unregister(_ idOrToken: String, route: EndpointRoute, notes: Notes) async throws -> Response {
        notes.token = try? DeviceToken(validating: idOrToken)
        let result = try await write { devices, _ in .removed(devices.remove(idOrToken: idOrToken)) }
        guard case .removed(let removed) = result, !removed.isEmpty else {
            throw EndpointError.deviceNotFound("no device with token or id \"\(AccessLog.maskedPath(idOrToken))\"")
        }
        notes.token = removed.first?.record.token
        metrics.unregistered(route: route, count: removed.count)
        return Self.response(["status": "unregistered"])
    }

    private func deviceHook(_ body: JSONValue, notes: Notes) async throws -> Response {
        guard let object = body.objectValue else { throw EndpointError.badRequest("expected a JSON object, not \(body.typeName)") }
        let fields = RequestBodyFields(object)
        let action: String?
        do throws(RegistrationBodyError) {
            action = try fields.string("action")
        } catch {
            throw EndpointError(error)
        }
        switch action {
        case "register"?:
            let registration = try Self.registration(body)
            notes.token = registration.token
            let outcome = try await register(registration, route: .deviceHook)
            return Self.response(["status": "registered", "device": EndpointJSON.device(outcome.device)])
        case "unregister"?:
            if notes.openNetwork {
                throw EndpointError.unauthorized(
                    "unregistering needs the secret: --open-registration lets only registrations in without it")
            }
            let token: String?
            do throws(RegistrationBodyError) {
                token = try fields.string("apns_token", "device_token")
            } catch {
                throw EndpointError(error)
            }
            guard let token, !token.isEmpty else { throw EndpointError.badRequest("\"device_token\" is missing") }
            return try await unregister(token, route: .deviceHook, notes: notes)
        case let other?:
            throw EndpointError.badRequest("\"action\" must be register or unregister, not \"\(other)\"")
        case nil:
            throw EndpointError.badRequest("\"action\" is missing: register or unregister")
        }
    }

    /// Applies `change` in the next batched write; a registry that cannot be written is a 500.
    private func write(_ change: @escaping RegistryWriteQueue.Change) async throws -> RegistryWriteQueue.ChangeResult {
        do {
            return try await writes.apply(change)
        } catch let error as RegistryError {
            throw EndpointError.registry("was not changed", error)
        }
    }

    private func readRegistry() throws(EndpointError) -> RegisteredDevices {
        do {
            return try registry.load()
        } catch {
            throw .registry("cannot be read", error)
        }
    }

    /// The device a path's `{token}` names: by device id, else by token (any case).
    private static func device(_ idOrToken: String, in devices: RegisteredDevices) -> RegisteredDevice? {
        if let record = devices[idOrToken] { return RegisteredDevice(id: idOrToken, record: record) }
        guard let token = try? DeviceToken(validating: idOrToken) else { return nil }
        return devices.devices.first { $0.record.token == token }
    }

    private static func registration(_ body: JSONValue) throws(EndpointError) -> DeviceRegistration {
        do throws(RegistrationBodyError) {
            return try DeviceRegistration.registration(fromBody: body, textLimit: DeviceRegistration.endpointTextLimit)
        } catch {
            throw EndpointError(error)
        }
    }

    // MARK: Bodies and responses

    /// A registration's body; for `/register-apns` without a body, `device_token` and `apns_token`
    /// from the query string (as the FastAPI handler it replaces reads them).
    private func readRegistrationBody(_ request: Request, route: EndpointRoute) async throws -> JSONValue {
        guard route == .registerAPNs else { return try await readJSON(request) }
        let query = request.uri.queryParameters
        let fields = ["device_token", "apns_token"]
        guard fields.contains(where: { query[Substring($0)] != nil }) else { return try await readJSON(request) }
        let data = try await collectBody(request)
        if data.contains(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 }) {
            // The body is the registration; the query's fields must still be what the document
            // says they are (a device id, an APNs token), not garbage passed over in silence.
            if let id = query[Substring("device_token")] {
                do throws(RegistryError) {
                    try DeviceRegistration.validateDeviceID(String(id))
                } catch {
                    throw EndpointError.badRequest("query parameter device_token: \(error.description)")
                }
            }
            if let token = query[Substring("apns_token")] {
                do throws(DeviceTokenError) {
                    _ = try DeviceToken(validating: String(token))
                } catch {
                    throw EndpointError.invalidToken("query parameter apns_token: \(error.message)")
                }
            }
            return try Self.parseJSON(data)
        }
        var object: [String: JSONValue] = [:]
        for field in fields {
            if let value = query[Substring(field)] { object[field] = .string(String(value)) }
        }
        return .object(object)
    }

    /// The body's bytes: at most `bodyLimit` (413).
    private func collectBody(_ request: Request) async throws -> Data {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.bodyLimit {
            throw EndpointError.tooLarge(limit: Self.bodyLimit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.bodyLimit)
        } catch is NIOTooManyBytesError {
            throw EndpointError.tooLarge(limit: Self.bodyLimit)
        } catch {
            throw EndpointError.badRequest("the request body could not be read: \(error)")
        }
        return Data(buffer.readableBytesView)
    }

    /// The body as JSON: at most `bodyLimit` bytes (413), non-empty and valid JSON (400).
    private func readJSON(_ request: Request) async throws -> JSONValue {
        let data = try await collectBody(request)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) {
            throw EndpointError.badRequest("the request body is empty; expected a JSON object")
        }
        return try Self.parseJSON(data)
    }

    /// `data` as JSON (400 when it is not).
    private static func parseJSON(_ data: Data) throws(EndpointError) -> JSONValue {
        do throws(JSONSyntaxError) {
            return try JSONValue.parse(data)
        } catch {
            throw .badRequest("the request body is not JSON: \(error.detail)")
        }
    }

    static func response(_ body: JSONValue, status: Int = 200, headers: [String: String] = [:]) -> Response {
        var fields: HTTPFields = [.contentType: "application/json"]
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        var bytes = body.serialized()
        bytes.append(0x0a)
        return Response(status: HTTPResponse.Status(code: status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
