import Foundation
import PushKitFreeCore
import PushKitFreeRegistry

/// A clock the tests set by hand.
package final class ManualClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    package init(_ date: Date = Date(timeIntervalSince1970: 1_714_564_800)) {
        current = date
    }

    package func now() -> Date { lock.withLock { current } }

    package func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// Distinct valid tokens, `token(1)`, `token(2)`, ...: the number as 32 bytes of zero-padded hex.
package func token(_ number: Int) -> DeviceToken {
    try! DeviceToken(validating: String(format: "%064x", number))
}

/// Distinct FCM registration tokens of today's shape, `fcmToken(1)`, ...: an instance id made of the
/// number, a colon, `APA91b` and 140 more characters.
package func fcmToken(_ number: Int) -> DeviceToken {
    try! DeviceToken(
        validating: String(format: "fJ3k%06d", number) + ":APA91b" + String(repeating: "Xy_9-Qw3Er", count: 14),
        transport: .fcm)
}

package func registration(
    _ id: String, _ number: Int, environment: APNsEnvironment? = nil, name: String? = nil, groups: [String]? = nil
) -> DeviceRegistration {
    try! DeviceRegistration(deviceID: id, token: token(number), environment: environment, name: name, groups: groups)
}

package let may1 = Date(timeIntervalSince1970: 1_714_564_800)

extension Data {
    package init(_ text: String) { self.init(text.utf8) }
}
