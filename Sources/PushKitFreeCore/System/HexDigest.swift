import Crypto

/// SHA-256 digests as lowercase hex text, the form ids derived from text take here (collapse ids,
/// agent keys, derived device ids, the endpoint's `server_key`).
package enum HexDigest {
    /// The 64 lowercase hex digits of SHA-256 of `text`'s UTF-8 bytes
    /// (the same as `printf %s "$text" | sha256sum`).
    package static func sha256(_ text: String) -> String {
        sha256(bytes: Array(text.utf8))
    }

    /// The 64 lowercase hex digits of SHA-256 of `bytes`.
    package static func sha256(bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// `bytes` as lowercase hex digits, two per byte.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
