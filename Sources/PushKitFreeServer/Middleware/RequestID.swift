import HTTPTypes

/// The id every answer carries in `X-Request-Id`, and that a 5xx names in its message and the
/// server's log names beside the detail the answer leaves out.
///
/// A proxy in front may have set one already: a presented id of 1 to 64 letters, digits and
/// `-_.:` is kept, so its logs and ours line up; anything else is replaced by 16 random hex digits.
enum RequestID {
    static let header = HTTPField.Name("X-Request-Id")!
    static let maximumLength = 64

    /// The id of a request that presented `presented` (its `X-Request-Id`, if any).
    static func make(presented: String?) -> String {
        if let presented, (1...maximumLength).contains(presented.utf8.count), presented.utf8.allSatisfy(isAllowed) {
            return presented
        }
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            true
        default:
            false
        }
    }
}
