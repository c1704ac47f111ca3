import CryptoExtras
import Foundation
@testable import PushKitFreeCore

/// What the FCM tests share: one RSA key made once (2048-bit generation is slow), service account
/// JSON around it, and a registration token of the usual shape.
enum FCMFixtures {
    /// A key made for this test run; nothing is read from or written to a committed file.
    static let key: _RSA.Signing.PrivateKey = {
        do { return try _RSA.Signing.PrivateKey(keySize: .bits2048) } catch {
            fatalError("cannot make an RSA key: \(error)")
        }
    }()

    /// The members of a service account file as the Firebase console writes it.
    static func members(key: _RSA.Signing.PrivateKey = key) -> [String: JSONValue] {
        [
            "type": "service_account",
            "project_id": "demo-project-1a2b3",
            "private_key_id": "0123456789abcdef0123456789abcdef01234567",
            "private_key": .string(key.pkcs8PEMRepresentation),
            "client_email": "firebase-adminsdk-abc12@demo-project-1a2b3.iam.gserviceaccount.com",
            "client_id": "112233445566778899000",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token",
            "universe_domain": "googleapis.com",
        ]
    }

    /// The service account file's bytes, with `changes` applied (`.null` removes a member).
    static func json(_ changes: [String: JSONValue] = [:]) -> Data {
        var object = members()
        for (name, value) in changes {
            if value == .null { object.removeValue(forKey: name) } else { object[name] = value }
        }
        return JSONValue.object(object).serialized()
    }

    /// A parsed account around `key`.
    static func account() throws -> FCMServiceAccount {
        try FCMServiceAccount(json: json(), origin: "service account file sa.json (from FCM_SERVICE_ACCOUNT)")
    }

    /// A registration token of today's shape: an instance id, a colon, `APA91b` and 140 more characters.
    static let tokenText = "fJ3kQ9xYZ0a_bC-dEfGh12:APA91b" + String(repeating: "Xy_9-Qw3Er", count: 14)
}
