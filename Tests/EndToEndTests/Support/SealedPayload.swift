import Foundation
import Testing

/// Opens each `enc` with its key in Python's `cryptography` (AESGCM: nonce first, tag last), as
/// the app's notification service extension would; the keys and sealed payloads go on standard
/// input, so no key is on a command line. The plaintexts, in order.
func openSealed(_ sealed: [(key: String, enc: String)]) throws -> [String] {
    let script = """
        import base64, json, sys
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        for key, enc in json.load(sys.stdin):
            box = base64.b64decode(enc, validate=True)
            plain = AESGCM(base64.b64decode(key, validate=True)).decrypt(box[:12], box[12:], None)
            print(json.dumps(plain.decode("utf-8")))
        """
    let input = try JSONSerialization.data(withJSONObject: sealed.map { [$0.key, $0.enc] })
    let run = try BuiltTool.runSystem("python3", ["-c", script], stdin: input)
    #expect(run.status == 0, "python: \(run.stderr)")
    return try run.stdout.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) as? String)
    }
}
