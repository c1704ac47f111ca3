#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CryptoExtras

/// A Firebase service account: the JSON file the Firebase console hands out (Project settings →
/// Service accounts → Generate new private key), with what sending through FCM needs from it.
///
/// The file's `type` must be `service_account`; `project_id` names the project messages are sent
/// for, `client_email` and `private_key_id` identify the account to Google's token endpoint
/// (`token_uri`, honoured so that a test server can stand in for Google), and `private_key` is the
/// RSA key in PKCS#8 PEM that signs the assertion (`FCMAssertion`). Other members (`client_id`,
/// `auth_uri`, …) are ignored. The key is parsed here, so a bad key is reported before anything is
/// sent; no message and no description ever shows it.
package struct FCMServiceAccount: Sendable, CustomStringConvertible {
    /// The Firebase project id, e.g. `my-app-1a2b3`: the `{project_id}` of the send URL.
    package let projectID: String
    /// The account's e-mail, e.g. `firebase-adminsdk-x@my-app.iam.gserviceaccount.com`: the assertion's `iss`.
    package let clientEmail: String
    /// The key's id at Google: the assertion's `kid` header.
    package let privateKeyID: String
    /// The OAuth 2.0 token endpoint, e.g. `https://oauth2.googleapis.com/token`: the assertion's
    /// `aud`, and where it is posted.
    package let tokenURI: String
    /// The RSA key that signs assertions (RS256).
    package let privateKey: _RSA.Signing.PrivateKey

    /// The only `type` accepted.
    package static let accountType = "service_account"
    /// The largest file read: a service account is about 2.4 KB; a FIFO, a device or anything this
    /// large is not one.
    package static let maximumFileBytes = 64 * 1024

    /// The project and the account, never the key.
    package var description: String { "service account \(clientEmail) of project \(projectID)" }

    /// The RSA key's size, e.g. 2048 (Google makes 2048-bit keys; fewer bits do not parse).
    package var keySizeInBits: Int { privateKey.keySizeInBits }

    /// An account from its fields, e.g. one a test made in memory.
    package init(
        projectID: String, clientEmail: String, privateKeyID: String, tokenURI: String,
        privateKey: _RSA.Signing.PrivateKey
    ) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
        self.privateKey = privateKey
    }

    /// Parses the bytes of a service account file.
    /// - Parameter origin: how to name the file in errors (its path and the setting it came from).
    /// - Throws: `FCMServiceAccountError` (78) naming the field that is missing or wrong.
    package init(json data: Data, origin: String) throws(FCMServiceAccountError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw FCMServiceAccountError(
                "\(origin) is not valid JSON (\(error.detail)); expected the service account file from the Firebase console"
            )
        }
        guard let object = value.objectValue else {
            throw FCMServiceAccountError("\(origin) must hold a JSON object, not a \(value.typeName)")
        }
        func field(_ name: String) throws(FCMServiceAccountError) -> String {
            guard let member = object[name], member != .null else {
                throw FCMServiceAccountError("\(origin) has no \"\(name)\"; a service account file has one")
            }
            guard let text = member.stringValue else {
                throw FCMServiceAccountError("\(origin): \"\(name)\" must be a string, not a \(member.typeName)")
            }
            guard !text.trimmingWhitespace.isEmpty else {
                throw FCMServiceAccountError("\(origin): \"\(name)\" is empty")
            }
            return text
        }
        let type = try field("type")
        guard type == Self.accountType else {
            throw FCMServiceAccountError(
                "\(origin) has type \"\(Self.shown(type))\"; expected \"\(Self.accountType)\" (the Firebase console's "
                    + "Project settings → Service accounts → Generate new private key)")
        }
        let projectID = try field("project_id")
        guard projectID.allSatisfy(Self.isProjectIDCharacter) else {
            throw FCMServiceAccountError(
                "\(origin): \"project_id\" \"\(Self.shown(projectID))\" is not a project id (letters, digits, "
                    + "'-', '.' and ':')")
        }
        let clientEmail = try field("client_email")
        guard clientEmail.contains("@"), !HeaderValue.hasControlCharacter(clientEmail) else {
            throw FCMServiceAccountError(
                "\(origin): \"client_email\" \"\(Self.shown(clientEmail))\" is not an e-mail address")
        }
        let privateKeyID = try field("private_key_id")
        guard !HeaderValue.hasControlCharacter(privateKeyID) else {
            throw FCMServiceAccountError("\(origin): \"private_key_id\" holds a control character")
        }
        let tokenURI = try field("token_uri")
        guard tokenURI.hasPrefix("https://") || tokenURI.hasPrefix("http://"),
            !HeaderValue.hasControlCharacter(tokenURI)
        else {
            throw FCMServiceAccountError(
                "\(origin): \"token_uri\" must be an http(s) URL, not \"\(Self.shown(tokenURI))\"")
        }
        let privateKey = try Self.parseKey(try field("private_key"), origin: origin)
        self.init(
            projectID: projectID, clientEmail: clientEmail, privateKeyID: privateKeyID, tokenURI: tokenURI,
            privateKey: privateKey)
    }

    /// Reads and parses the service account file at `path`.
    /// - Parameter source: the setting that named the path, for messages.
    /// - Throws: `FCMServiceAccountError`: 66 when missing or unreadable, 78 when not a usable account.
    package static func load(path: String, source: SettingSource) throws(FCMServiceAccountError) -> FCMServiceAccount {
        let origin = origin(path: path, source: source)
        let read: Data?
        do throws(FileSystemError) {
            read = try PosixFile.readRegularFile(path, limit: maximumFileBytes)
        } catch {
            throw FCMServiceAccountError("cannot read \(origin): \(error.reason)", exitStatus: .noInput)
        }
        guard let data = read else {
            throw FCMServiceAccountError("\(origin) does not exist", exitStatus: .noInput)
        }
        return try FCMServiceAccount(json: data, origin: origin)
    }

    /// How messages name the service account file at `path`, named by the setting `source`.
    package static func origin(path: String, source: SettingSource) -> String {
        "service account file \(path) (from \(source))"
    }

    /// A warning when the file at `path` can be read by group or others (`chmod 600` fixes it); the
    /// tools print it and go on, since the account still works.
    package static func permissionWarning(path: String) -> String? {
        guard let mode = PosixFile.permissionsOpenToOthers(of: path) else { return nil }
        return "the service account file \(path) has permissions \(String(mode, radix: 8)), which let other users "
            + "read its private key; run chmod 600 \(path)"
    }

    /// The RSA key in `pem`; the message says what the text is instead, never showing it.
    private static func parseKey(
        _ pem: String, origin: String
    ) throws(FCMServiceAccountError) -> _RSA.Signing.PrivateKey {
        let text = pem.trimmingWhitespace
        guard text.contains("-----BEGIN") else {
            throw FCMServiceAccountError(
                "\(origin): \"private_key\" is not a PEM key (no \"-----BEGIN\" line); expected the RSA key Google wrote"
            )
        }
        if text.contains("ENCRYPTED") {
            throw FCMServiceAccountError("\(origin): \"private_key\" is encrypted; service account keys are not")
        }
        if text.contains("PUBLIC KEY-----") {
            throw FCMServiceAccountError("\(origin): \"private_key\" is a public key; signing needs the private key")
        }
        guard ProviderKey.holdsRSAKey(text) else {
            throw FCMServiceAccountError(
                "\(origin): \"private_key\" is not an RSA private key; Google's service account keys are RSA (RS256)")
        }
        do {
            return try _RSA.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            throw FCMServiceAccountError(
                "\(origin): \"private_key\" does not parse as an RSA private key of 2048 bits or more")
        }
    }

    /// Whether `character` may appear in a project id: Google's are lowercase letters, digits and
    /// hyphens; a domain-scoped one (`example.com:project`) adds `.` and `:`.
    private static func isProjectIDCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-.:".contains(character))
    }

    /// `text` for a message: control characters escaped, at most 80 characters.
    private static func shown(_ text: String) -> String {
        let escaped = APNsResponse.escapingControlCharacters(text)
        return escaped.count > 80 ? String(escaped.prefix(80)) + "…" : escaped
    }
}
