import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The format of an encrypted send: what travels in clear and how the content is sealed.
///
/// The payload that would have been sent is sealed with AES-256-GCM under the device's content key,
/// with a fresh random 12-byte nonce for every notification and device, and no additional
/// authenticated data. The payload APNs carries is the clear placeholder (an alert and
/// `mutable-content: 1`, nothing of the content) with one more member beside `aps`:
/// `"enc": base64(nonce ‖ ciphertext ‖ tag)`, standard base64 with padding, the 16-byte tag last:
/// exactly CryptoKit's `AES.GCM.SealedBox.combined`, which the app opens with
/// `AES.GCM.SealedBox(combined:)`.
package enum ContentSealing {
    /// The member beside `aps` that carries the sealed payload.
    package static let member = "enc"
    /// AES-GCM's nonce: 12 bytes.
    package static let nonceByteCount = 12
    /// AES-GCM's authentication tag: 16 bytes.
    package static let tagByteCount = 16

    /// `plaintext` sealed with `key`: nonce ‖ ciphertext ‖ tag.
    /// - Parameter nonce: a fresh random one unless a test gives its own.
    /// - Throws: swift-crypto's error, which a 32-byte key and a 12-byte nonce never cause.
    package static func seal(
        _ plaintext: Data, with key: ContentKey, nonce: AES.GCM.Nonce = AES.GCM.Nonce()
    ) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: key.symmetricKey, nonce: nonce)
        // `combined` is nil only for nonces other than 12 bytes.
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined
    }

    /// Opens what `seal` made (the app's side of the format; the tests use it).
    /// - Throws: swift-crypto's error when the key is not the one it was sealed with, or the bytes
    ///   were changed.
    package static func open(_ combined: Data, with key: ContentKey) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key.symmetricKey)
    }

    /// The payload APNs carries for one device: `clear` (a serialized JSON object whose members sort
    /// before `enc`, as the clear placeholder's `aps` does) with `enc` added as its last member.
    package static func payload(clear: Data, sealed: Data) -> Data {
        var bytes = Data(clear.dropLast()) // its closing brace
        bytes.reserveCapacity(clear.count + memberOverhead + base64Length(ofBytes: sealed.count))
        bytes.append(contentsOf: ",\"\(member)\":\"".utf8)
        bytes.append(contentsOf: sealed.base64EncodedString().utf8)
        bytes.append(contentsOf: "\"}".utf8)
        return bytes
    }

    /// The size of `payload(clear:sealed:)` for a clear part of `clearBytes` and content of
    /// `contentBytes` (before sealing).
    package static func payloadSize(clearBytes: Int, contentBytes: Int) -> Int {
        clearBytes + memberOverhead + base64Length(ofBytes: nonceByteCount + contentBytes + tagByteCount)
    }

    /// The largest content (before sealing) whose encrypted payload, beside a clear part of
    /// `clearBytes`, fits in `limit` bytes; negative when not even empty content fits.
    package static func contentLimit(clearBytes: Int, limit: Int) -> Int {
        let base64Room = limit - clearBytes - memberOverhead
        guard base64Room >= 0 else { return -1 }
        return base64Room / 4 * 3 - nonceByteCount - tagByteCount
    }

    /// `,"enc":"` and the closing quote: what adding the member costs besides its base64.
    private static let memberOverhead = ",\"\(member)\":\"\"".utf8.count

    /// The length of standard base64, with padding, of `count` bytes.
    private static func base64Length(ofBytes count: Int) -> Int { (count + 2) / 3 * 4 }
}
