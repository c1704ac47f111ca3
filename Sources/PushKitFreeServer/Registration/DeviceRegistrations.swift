#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

/// The registry as the routes use it: read directly, changed through the batching write queue
/// (`RegistryWriteQueue`), each registration and removal counted in the metrics. Every refusal is
/// an `EndpointError` and changes nothing.
struct DeviceRegistrations: Sendable {
    let registry: any RegistryStore
    let writes: RegistryWriteQueue
    let metrics: EndpointMetrics

    /// Records `registration` in the next batched write; `route` labels it in the metrics (the
    /// route's path as the router names it).
    func register(
        _ registration: DeviceRegistration,
        route: String
    ) async throws(EndpointError) -> RegisteredDevices.RegistrationOutcome {
        try await register(route: route) { devices, now throws(RegistryError) in
            try devices.register(registration, at: now)
        }
    }

    /// Applies a registration, `change`, in the next batched write. A change the registry refuses
    /// (a device id that names a group, a group that names a device, a device whose record cannot
    /// be read) is a 409 saying which, and changes nothing.
    func register(
        route: String,
        _ change:
            @escaping @Sendable (inout RegisteredDevices, Date) throws(RegistryError) ->
            RegisteredDevices.RegistrationOutcome
    ) async throws(EndpointError) -> RegisteredDevices.RegistrationOutcome {
        let result = try await write { devices, now in
            Result { () throws(RegistryError) in try change(&devices, now) }
        }
        switch result {
        case .success(let outcome):
            metrics.registered(route: route)
            return outcome
        case .failure(let error):
            throw .conflict(error.description)
        }
    }

    /// Removes the device with this id or token (404 when there is none).
    /// - Returns: the devices removed.
    func unregister(
        _ idOrToken: String, route: String,
        notes: RequestNotes
    ) async throws(EndpointError) -> [RegisteredDevice] {
        notes.token = try? DeviceToken(validating: idOrToken, transport: nil)
        let removed = try await write { devices, _ in devices.remove(idOrToken: idOrToken) }
        guard !removed.isEmpty else {
            throw .deviceNotFound("no device with token or id \"\(AccessLog.maskedPath(idOrToken))\"")
        }
        notes.token = removed.first?.record.token
        metrics.unregistered(route: route, count: removed.count)
        return removed
    }

    /// Applies `change` in the next batched write and returns its result; a registry that cannot
    /// be written is a 500.
    func write<Result: Sendable>(
        _ change: @escaping @Sendable (inout RegisteredDevices, Date) -> Result
    ) async throws(EndpointError) -> Result {
        do {
            return try await writes.apply(change)
        } catch let error as RegistryError {
            throw .registry("was not changed", error)
        } catch {
            throw .internalError("the server failed to answer", logDetail: "unexpected error: \(error)")
        }
    }

    /// The registry as it is on disk; one that cannot be read is a 500.
    func read() throws(EndpointError) -> RegisteredDevices {
        do {
            return try registry.load()
        } catch {
            throw .registry("cannot be read", error)
        }
    }

    /// The device a path's `{token}` names: by device id, else by token (any case).
    static func device(_ idOrToken: String, in devices: RegisteredDevices) -> RegisteredDevice? {
        if let record = devices[idOrToken] { return RegisteredDevice(id: idOrToken, record: record) }
        guard let token = try? DeviceToken(validating: idOrToken, transport: nil) else { return nil }
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
}
