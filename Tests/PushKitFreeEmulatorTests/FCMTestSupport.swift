import Crypto
import CryptoExtras
import Foundation
import PushKitFreeCore
import PushKitFreeEmulator

/// One RSA key and service account for all FCM tests (making a 2048-bit key takes a moment), and
/// assertions signed as Google's client libraries sign them.
enum FCMTestSupport {
    static let tokenURI = "https://127.0.0.1:2197/token"
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let account = EmulatorServiceAccount(projectID: "pushkit-emulator", privateKey: key)
    /// A registration token of the usual shape: instance id, colon, `APA91b…`.
    static let deviceToken = "dK3x9Yv0QxS2bP1cLmN4oA:APA91b" + String(repeating: "Fz7_-q", count: 24)

    /// The claims google-auth signs, at `now`.
    static func claims(now: Date = Date()) -> [String: JSONValue] {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        return [
            "iss": .string(account.clientEmail), "aud": .string(tokenURI),
            "scope": .string(FCMAssertionCheck.messagingScope), "iat": .number(issuedAt),
            "exp": .number(issuedAt + 3600),
        ]
    }

    /// An RS256 JWT of `claims` signed with `key`.
    static func assertion(
        _ claims: [String: JSONValue] = claims(), header: [String: JSONValue]? = nil,
        signedWith signer: _RSA.Signing.PrivateKey = key
    ) -> String {
        let header =
            header ?? ["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(account.privateKeyID)]
        let signingInput =
            base64URL(JSONValue.object(header).serialized()) + "." + base64URL(JSONValue.object(claims).serialized())
        let signature = try! signer.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
