#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a send finds the devices it goes to and records what it learned about them: the device
/// registry, whose stores (the PushKitFreeRegistry module) adopt this, so the send pipeline knows
/// no file or database.
package protocol DeviceDirectory: Sendable {
    /// The registered devices `audience` names (its device ids and groups; every device when it
    /// names none), of a scheduled send only those due at `now`. `audience.tokens` is not looked
    /// up here.
    /// - Throws: `DeliverySelectionError` (65) for a device id that is not registered or, with
    ///   `strictGroups`, a group without devices; the store's error when it cannot be read.
    func targets(for audience: PushSender.Audience, at now: Date) throws -> [DeliveryTarget]

    /// The push-to-start tokens of the devices `audience` names (a Live Activity start).
    /// - Throws: as `targets(for:at:)`.
    func pushToStartTargets(for audience: PushSender.Audience) throws -> PushToStartSelection

    /// Writes what a send learned back in one update: prunes what APNs answered 410 for, records
    /// learned environments, the last delivery and a scheduled send's day; sets `pruned` and
    /// `learnedEnvironment` on `results` only when the write happened.
    /// - Throws: the store's error when it cannot be written (`results` are then unchanged).
    func record(_ results: inout [DeliveryResult]) throws
}

/// Whom a Live Activity start goes to when no `--token` is given.
package struct PushToStartSelection: Sendable, Equatable {
    /// One target per distinct push-to-start token of the selected devices, in device id order,
    /// addressed to the device's recorded environment (the app build that made the token
    /// registered both; when none is recorded, BadDeviceToken tries the other one as usual).
    package var targets: [DeliveryTarget]
    /// Selected devices that have no push-to-start token, sorted; they are not sent to.
    package var devicesWithoutToken: [String]

    /// A selection as given.
    package init(targets: [DeliveryTarget], devicesWithoutToken: [String]) {
        self.targets = targets
        self.devicesWithoutToken = devicesWithoutToken
    }
}

/// A `--device` that the registry does not hold.
package struct DeliverySelectionError: PushKitError {
    /// Which device ids (or, with strict groups, groups) the registry lacks, and where it looked.
    package let message: String
    /// Always 65: a device that is not registered is bad input.
    package var exitStatus: ExitStatus { .dataError }
    /// The message.
    package var description: String { message }

    /// An error with `message`.
    package init(message: String) {
        self.message = message
    }
}

extension [DeliveryResult] {
    /// Marks the devices a registry write would have pruned as not pruned, for `reason` (the
    /// registry could not be written).
    package mutating func markPruneFailed(reason: String) {
        for index in indices where self[index].outcome == .unregistered && self[index].target.deviceID != nil {
            self[index].pruneFailure = reason
        }
    }
}
