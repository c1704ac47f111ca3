import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A device's 32-byte content key: the AES-256-GCM key an encrypted send seals the notification's
/// payload with, which only the device's app (its notification service extension) also holds.
///
/// Written as standard base64 (44 characters with its `=`), as the app and the registry keep it.
/// Its description never shows the key, so it cannot reach a log or a message by accident.
package struct ContentKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key's length in bytes: AES-256.
    package static let byteCount = 32

    /// The raw key.
    private let bytes: Data

    /// The key in `bytes`, which must be 32 bytes long.
    /// - Throws: `ContentKeyError` (65) for any other length.
    package init(bytes: Data) throws(ContentKeyError) {
        guard bytes.count == Self.byteCount else {
            throw ContentKeyError("a content key is \(Self.byteCount) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// The key written as standard base64 with its padding, exactly as `base64` writes it (44
    /// characters; no white space, no other alphabet), so that one key has one spelling.
    /// - Throws: `ContentKeyError` (65) when `text` is not such base64 or not 32 bytes.
    package init(base64 text: String) throws(ContentKeyError) {
        guard !text.isEmpty else { throw ContentKeyError("the content key is empty") }
        let notBase64 = ContentKeyError(
            "the content key is not base64: give its \(Self.byteCount) bytes in standard base64 (44 characters, ending in =)"
        )
        guard let bytes = Data(base64Encoded: text) else { throw notBase64 }
        try self.init(bytes: bytes)
        guard base64 == text else { throw notBase64 }
    }

    /// A new key from the system's secure random source.
    package static func random() -> ContentKey {
        let key = SymmetricKey(size: .bits256)
        // A 256-bit key is 32 bytes by construction.
        return ContentKey(unchecked: key.withUnsafeBytes { Data($0) })
    }

    private init(unchecked bytes: Data) {
        self.bytes = bytes
    }

    /// The key as standard base64, for the one print of a new key and `list --show-content-keys`.
    package var base64: String { bytes.base64EncodedString() }

    /// The key for swift-crypto.
    package var symmetricKey: SymmetricKey { SymmetricKey(data: bytes) }

    /// Never the key: `content key (32 bytes)`.
    package var description: String { "content key (\(Self.byteCount) bytes)" }

    /// Never the key, as `description`.
    package var debugDescription: String { description }
}

/// A content key that cannot be used: not base64, or not 32 bytes.
package struct ContentKeyError: PushKitError, Equatable {
    /// What is wrong; never the key itself.
    package let message: String

    /// An error saying `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// Why an encrypted send refuses a device without a key (its outcome's reason).
    package static let missing =
        "no content key for an encrypted send, so it was not sent (never in clear); "
        + "give the device one with register-apns make-content-key ID or add ID TOKEN --content-key BASE64"

    /// Always 65: a bad key is bad input.
    package var exitStatus: ExitStatus { .dataError }
    /// The message.
    package var description: String { message }
}
