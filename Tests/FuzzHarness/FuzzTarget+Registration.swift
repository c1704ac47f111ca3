#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeRegistry

extension FuzzTarget {
    /// `register-apns add --from-json`: one body, an array of them, or JSON Lines, with and without
    /// defaults from flags. What is accepted is registered, written and read back unchanged.
    static func checkRegistration(_ input: [UInt8]) throws(FuzzViolation) {
        let data = Data(input)
        let flags = DeviceRegistration.Defaults(
            environment: .sandbox, name: "Fuzz", model: "iPhone0,0", osVersion: "1.0", appVersion: "1", groups: ["fuzz"]
        )
        for defaults in [DeviceRegistration.Defaults(), flags] {
            let registrations: [DeviceRegistration]
            do throws(RegistryError) {
                registrations = try DeviceRegistration.parseRequestBodies(
                    data, source: "standard input", defaults: defaults)
            } catch {
                try FuzzViolation.requireMessage(error.description, from: "add --from-json")
                try FuzzViolation.require(
                    error.exitStatus == .dataError, "a bad registration body exits \(error.exitStatus.rawValue), not 65"
                )
                continue
            }
            try FuzzViolation.require(!registrations.isEmpty, "add --from-json accepted input without a registration")
            var registry = RegisteredDevices()
            for registration in registrations { try requireRegistered(registration, in: &registry) }
            try requireRoundTrip(registry, "registry after add --from-json", exact: true)
        }
    }

    /// Registers `registration` and checks the registry holds it: its id, its token, under one id.
    static func requireRegistered(
        _ registration: DeviceRegistration, in registry: inout RegisteredDevices
    ) throws(FuzzViolation) {
        let before = registry
        let outcome: RegisteredDevices.RegistrationOutcome
        do throws(RegistryError) {
            outcome = try registry.register(registration, at: now)
        } catch {
            // A name both a device id and a group is the one thing a valid registration is refused for.
            guard case .nameTaken = error else {
                throw FuzzViolation("a registration is refused: \(error.description)")
            }
            try FuzzViolation.require(registry == before, "a refused registration changed the registry")
            return
        }
        try FuzzViolation.require(outcome.device.id == registration.deviceID, "registered under another id")
        try FuzzViolation.require(
            registry[registration.deviceID]?.token == registration.token,
            "the registry does not hold the registered token")
        try FuzzViolation.require(
            registry.deviceIDs(holding: registration.token) == [registration.deviceID],
            "a token is held by more than one device")
    }
}
