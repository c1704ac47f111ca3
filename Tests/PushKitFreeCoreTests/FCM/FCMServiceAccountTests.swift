import Crypto
import CryptoExtras
import Foundation
import PushKitFreeTestSupport
import Testing
@testable import PushKitFreeCore

@Suite("FCM service account")
struct FCMServiceAccountTests {
    let origin = "service account file /etc/sa.json (from FCM_SERVICE_ACCOUNT)"

    func refusal(_ changes: [String: JSONValue]) -> String {
        do {
            _ = try FCMServiceAccount(json: FCMFixtures.json(changes), origin: origin)
            return "accepted"
        } catch {
            return error.message
        }
    }

    @Test("reads the fields of the file the Firebase console writes")
    func readsFields() throws {
        let account = try FCMFixtures.account()
        #expect(account.projectID == "demo-project-1a2b3")
        #expect(account.clientEmail == "firebase-adminsdk-abc12@demo-project-1a2b3.iam.gserviceaccount.com")
        #expect(account.privateKeyID == "0123456789abcdef0123456789abcdef01234567")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(account.privateKey.publicKey.derRepresentation == FCMFixtures.key.publicKey.derRepresentation)
        #expect(!"\(account)".contains("PRIVATE"))
    }

    @Test("a PKCS#1 RSA key is read too", .timeLimit(.minutes(1)))
    func readsPKCS1() throws {
        let account = try FCMServiceAccount(
            json: FCMFixtures.json(["private_key": .string(FCMFixtures.key.pemRepresentation)]), origin: origin)
        #expect(account.privateKey.publicKey.derRepresentation == FCMFixtures.key.publicKey.derRepresentation)
    }

    @Test(
        "each missing field is named, with the file",
        arguments: ["type", "project_id", "client_email", "private_key", "private_key_id", "token_uri"])
    func missingField(_ name: String) {
        #expect(refusal([name: .null]) == "\(origin) has no \"\(name)\"; a service account file has one")
    }

    @Test("a field of the wrong type or empty is named")
    func wrongTypes() {
        #expect(refusal(["project_id": 42]) == "\(origin): \"project_id\" must be a string, not a number")
        #expect(refusal(["client_email": " "]) == "\(origin): \"client_email\" is empty")
    }

    @Test("other kinds of Google credentials are refused, pointing at the console")
    func wrongType() {
        #expect(
            refusal(["type": "authorized_user"]).hasPrefix(
                "\(origin) has type \"authorized_user\"; expected \"service_account\""))
    }

    @Test("bad values are refused by name")
    func badValues() {
        #expect(refusal(["token_uri": "ftp://x"]) == "\(origin): \"token_uri\" must be an http(s) URL, not \"ftp://x\"")
        #expect(
            refusal(["client_email": "nobody"]) == "\(origin): \"client_email\" \"nobody\" is not an e-mail address")
        #expect(refusal(["project_id": "a/b"]).hasPrefix("\(origin): \"project_id\" \"a/b\" is not a project id"))
    }

    @Test("a private key that is not an RSA private key is refused without being shown")
    func badKeys() throws {
        let ecKey = P256.Signing.PrivateKey().pemRepresentation
        let notRSA = refusal(["private_key": .string(ecKey)])
        #expect(notRSA.hasPrefix("\(origin): \"private_key\" is not an RSA private key"))
        #expect(!notRSA.contains(String(ecKey.split(separator: "\n")[1])))
        #expect(refusal(["private_key": "just text"]).contains("is not a PEM key"))
        #expect(
            refusal(["private_key": .string(FCMFixtures.key.publicKey.pemRepresentation)])
                .contains("is a public key"))
        let garbled = "-----BEGIN PRIVATE KEY-----\nMIIBVgIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
        let refused = refusal(["private_key": .string(garbled)])
        #expect(refused == "\(origin): \"private_key\" does not parse as an RSA private key of 2048 bits or more")
    }

    @Test("a file that is not a JSON object is named")
    func notJSON() {
        #expect(throws: FCMServiceAccountError.self) { try FCMServiceAccount(json: Data("{".utf8), origin: origin) }
        #expect {
            try FCMServiceAccount(json: Data("[1]".utf8), origin: origin)
        } throws: { ($0 as? FCMServiceAccountError)?.message == "\(origin) must hold a JSON object, not a array" }
    }

    @Test("the file is read like the .p8: regular, size-limited, missing is 66, open mode warned")
    func readsFile() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory + "/sa.json"
        let source = SettingSource.environment("FCM_SERVICE_ACCOUNT")
        #expect {
            try FCMServiceAccount.load(path: path, source: source)
        } throws: {
            let error = $0 as? FCMServiceAccountError
            return error?.exitStatus == .noInput
                && error?.message == "service account file \(path) (from FCM_SERVICE_ACCOUNT) does not exist"
        }
        #expect {
            try FCMServiceAccount.load(path: directory, source: source)
        } throws: { ($0 as? FCMServiceAccountError)?.message.contains("not a regular file") == true }

        try FCMFixtures.json().write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(try FCMServiceAccount.load(path: path, source: source).projectID == "demo-project-1a2b3")
        #expect(FCMServiceAccount.permissionWarning(path: path) == nil)
        chmod(path, 0o644)
        #expect(
            FCMServiceAccount.permissionWarning(path: path)
                == "the service account file \(path) has permissions 644, which let other users read its private key; run chmod 600 \(path)"
        )

        try Data(repeating: 0x20, count: FCMServiceAccount.maximumFileBytes + 1).write(to: URL(fileURLWithPath: path))
        #expect {
            try FCMServiceAccount.load(path: path, source: source)
        } throws: { ($0 as? FCMServiceAccountError)?.message.contains("more than such a file holds") == true }
    }
}
