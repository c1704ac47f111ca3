#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// What the routes of `register-apns serve` share: the registry (read directly, written through the
/// batching queue), delivery, the metrics and the health check. Routes decode a request, call
/// these, and encode the answer; every refusal is an `EndpointError` and changes nothing.
final class EndpointService: Sendable {
    let settings: EndpointSettings
    let registry: any RegistryStore
    let writes: RegistryWriteQueue
    let delivery: EndpointDelivery
    let metrics: EndpointMetrics
    let health: EndpointHealth
    /// The per-client allowance of registry changes: `RateLimitMiddleware` spends it per request on
    /// the registration routes, the gateway per message that changes the registry.
    let limiter: RateLimiter
    /// The per-client allowance of failed authentications (`AuthMiddleware`), as many a minute as
    /// registrations.
    let authFailures: RateLimiter

    init(settings: EndpointSettings) {
        // A record the registry cannot use is named in the server's log, once, when first read.
        RegistryWarnings.setHandler { warning in
            StandardStreams.writeError("\(EndpointServer.tool): warning: \(warning)\n")
        }
        self.settings = settings
        let metrics = EndpointMetrics()
        let delivery = EndpointDelivery(
            configuration: settings.configuration, deliveryPolicy: settings.deliveryPolicy,
            notificationPolicy: settings.notificationPolicy
        ) { warning in
            StandardStreams.writeError("\(EndpointServer.tool): warning: \(warning)\n")
        }
        registry = settings.configuration.registry(appendingToJournal: true)
        writes = RegistryWriteQueue(
            registry: registry, foldDelay: settings.configuration.registryTuning.journalIdle
        ) { size in metrics.registryBatch(size: size) }
        self.delivery = delivery
        self.metrics = metrics
        limiter = RateLimiter(perMinute: settings.rateLimit)
        authFailures = RateLimiter(perMinute: settings.rateLimit)
        health = EndpointHealth(registry: registry, writes: writes, delivery: delivery) { line in
            StandardStreams.writeError("\(EndpointServer.tool): \(line)\n")
        }
    }

    /// Records `registration` in the next batched write.
    func register(
        _ registration: DeviceRegistration,
        route: EndpointRoute
    ) async throws(EndpointError) -> RegisteredDevices.RegistrationOutcome {
        try await register(route: route) { devices, now throws(RegistryError) in
            try devices.register(registration, at: now)
        }
    }

    /// Applies a registration, `change`, in the next batched write. A change the registry refuses
    /// (a device id that names a group, a group that names a device, a device whose record cannot
    /// be read) is a 409 saying which, and changes nothing.
    func register(
        route: EndpointRoute,
        _ change:
            @escaping @Sendable (inout RegisteredDevices, Date) throws(RegistryError) ->
            RegisteredDevices.RegistrationOutcome
    ) async throws(EndpointError) -> RegisteredDevices.RegistrationOutcome {
        let result = try await write { devices, now in
            do throws(RegistryError) {
                return .registered(try change(&devices, now))
            } catch {
                return .refused(error)
            }
        }
        switch result {
        case .registered(let outcome):
            metrics.registered(route: route)
            return outcome
        case .refused(let error):
            throw .conflict(error.description)
        default:
            throw .internalError("the registration was not recorded", logDetail: "the write queue answered \(result)")
        }
    }

    /// Removes the device with this id or token (404 when there is none).
    /// - Returns: the devices removed.
    func unregister(
        _ idOrToken: String, route: EndpointRoute,
        notes: RequestNotes
    ) async throws(EndpointError) -> [RegisteredDevice] {
        notes.token = try? DeviceToken(validating: idOrToken)
        let result = try await write { devices, _ in .removed(devices.remove(idOrToken: idOrToken)) }
        guard case .removed(let removed) = result, !removed.isEmpty else {
            throw .deviceNotFound("no device with token or id \"\(AccessLog.maskedPath(idOrToken))\"")
        }
        notes.token = removed.first?.record.token
        metrics.unregistered(route: route, count: removed.count)
        return removed
    }

    /// Applies `change` in the next batched write; a registry that cannot be written is a 500.
    func write(
        _ change: @escaping RegistryWriteQueue.Change
    ) async throws(EndpointError) -> RegistryWriteQueue.ChangeResult {
        do {
            return try await writes.apply(change)
        } catch let error as RegistryError {
            throw .registry("was not changed", error)
        } catch {
            throw .internalError("the server failed to answer", logDetail: "unexpected error: \(error)")
        }
    }

    /// The registry as it is on disk; one that cannot be read is a 500.
    func readRegistry() throws(EndpointError) -> RegisteredDevices {
        do {
            return try registry.load()
        } catch {
            throw .registry("cannot be read", error)
        }
    }

    /// The device a path's `{token}` names: by device id, else by token (any case).
    static func device(_ idOrToken: String, in devices: RegisteredDevices) -> RegisteredDevice? {
        if let record = devices[idOrToken] { return RegisteredDevice(id: idOrToken, record: record) }
        guard let token = try? DeviceToken(validating: idOrToken) else { return nil }
        return devices.devices.first { $0.record.token == token }
    }

    /// The registration a body describes (400, or 422 for its token), with the endpoint's text limit.
    static func registration(_ body: JSONValue) throws(EndpointError) -> DeviceRegistration {
        do throws(RegistrationBodyError) {
            return try DeviceRegistration.registration(fromBody: body, textLimit: DeviceRegistration.endpointTextLimit)
        } catch {
            throw EndpointError(error)
        }
    }

    /// Sends to every registered device (`send-push` without a selection).
    func sendToAll(_ spec: PushSpecification) async throws(EndpointError) -> DeliveryReport {
        let report = try await delivery.send(spec)
        metrics.delivered(report)
        return report
    }
}
