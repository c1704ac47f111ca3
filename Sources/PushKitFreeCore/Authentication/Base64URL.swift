#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// base64url (RFC 4648 §5) without padding, as JWS requires.
package enum Base64URL {
    /// Encodes bytes as base64url without `=` padding.
    package static func encode<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(
            text.unicodeScalars.compactMap { scalar -> Character? in
                switch scalar {
                case "+": "-"
                case "/": "_"
                case "=": nil
                default: Character(scalar)
                }
            })
        return text
    }

    /// Decodes base64url with or without padding; `nil` when `text` holds other characters.
    package static func decode(_ text: Substring) -> Data? {
        var standard = String(
            text.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "-": "+"
                case "_": "/"
                default: Character(scalar)
                }
            })
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: standard)
    }
}
