import PushKitFreeCore
/// Writes what a run learned back to the registry, in one locked update:
/// prunes tokens APNs answered 410 for, or FCM `UNREGISTERED` (unless the app registered again
/// after the answer's timestamp), records APNs environments that were not yet known, and
/// `last_delivered_at`. An FCM token has no APNs environment: its deliveries record none.
///
/// A token is removed for no other reason: never for a timeout, a TLS error or a 5xx.
///
/// Push-to-start targets (Live Activity starts) differ: a 410 clears only the device's
/// push-to-start token (its device token is unaffected), and their answers never record the
/// device's environment. Addressing a push-to-start token to the recorded environment risks one
/// push; recording an environment from it would steer every later push to the device token, and
/// the two tokens are registered separately (a push-to-start token left from a debug build would
/// mislabel a TestFlight device). `last_delivered_at` is recorded for every delivery, and for a
/// scheduled send (`--due briefing`) the device-local day it served.
package enum RegistryBookkeeping {
    /// Applies `results` to `registry`, setting `pruned` and `learnedEnvironment` on them (`pruned`
    /// means the push-to-start token was cleared, for a push-to-start target).
    /// Results without a device id (`--token`) are left alone.
    /// `results` change only when the registry was written: a failed write (a full disk) leaves
    /// every `pruned` false, so nothing reports a prune that did not happen.
    package static func apply(_ results: inout [DeliveryResult], to registry: any RegistryStore) throws {
        guard
            results.contains(where: {
                $0.target.deviceID != nil && ($0.outcome == .delivered || $0.outcome == .unregistered)
            })
        else {
            return
        }
        let now = registry.clock.now()
        let original = results
        var updated = results
        try registry.update { devices in
            // Run again from the start when another program rewrote the file meanwhile.
            updated = original
            var delivered: [String] = []
            var scheduledDays: [String: LocalDate] = [:]
            for index in updated.indices {
                guard let deviceID = updated[index].target.deviceID else { continue }
                let token = updated[index].target.token
                let isPushToStart = updated[index].target.tokenKind == .pushToStart
                switch updated[index].outcome {
                case .unregistered where isPushToStart:
                    updated[index].pruned = devices.clearPushToStartTokenIfUnregistered(
                        deviceID: deviceID, token: token, unregisteredAt: updated[index].unregisteredAt)
                case .unregistered:
                    updated[index].pruned = devices.removeIfUnregistered(
                        deviceID: deviceID, token: token, unregisteredAt: updated[index].unregisteredAt)
                case .delivered:
                    delivered.append(deviceID)
                    if let day = updated[index].target.scheduledDay { scheduledDays[deviceID] = day }
                    if updated[index].target.recordedEnvironment == nil, !isPushToStart, token.transport == .apns {
                        updated[index].learnedEnvironment = devices.recordEnvironment(
                            updated[index].environment, deviceID: deviceID, token: token)
                    }
                case .rejected, .failed, .skipped, .notTried, .unknown, .refused:
                    break
                }
            }
            devices.recordDelivery(to: delivered, at: now)
            devices.recordBriefingSent(scheduledDays)
        }
        results = updated
    }
}
