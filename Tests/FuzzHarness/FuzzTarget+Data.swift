#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

extension FuzzTarget {
    /// `send-push --data`: the input split at NUL bytes into up to four values (a command line
    /// cannot carry NUL), each given as one `--data`, with and without a title.
    static func checkData(_ input: [UInt8]) throws(FuzzViolation) {
        let values = input.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        for title in ["Fuzz", nil] {
            var spec = PushSpecification()
            spec.content.title = title
            spec.data = values
            let built: PushSpecification.Built
            do {
                built = try spec.build(bundleID: "com.example.app")
            } catch {
                try requireUserError(error, from: "--data")
                continue
            }
            try requireSendablePayload(built.request.payload, "--data")
            guard let payload = try? JSONValue.parse(built.request.payload).objectValue else { continue }
            // Every member of the last value that set it is in the payload as given.
            var expected: [String: JSONValue] = [:]
            for value in values {
                guard let object = try? JSONValue.parse(Data(value.utf8)).objectValue else {
                    throw FuzzViolation("--data accepted a value that is not a JSON object: \(value.prefix(200))")
                }
                expected.merge(object) { _, new in new }
            }
            for (key, value) in expected where payload[key] != value {
                throw FuzzViolation("--data member \"\(key.prefix(100))\" is not in the payload as given")
            }
        }
    }
}
