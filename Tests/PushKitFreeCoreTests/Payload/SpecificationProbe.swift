import Foundation
import Testing
@testable import PushKitFreeCore

/// Builds variations of one push specification and reads what came of each: the payload, or the
/// refusal in `send-push`'s words (settings named `--` + their raw value), for the payload tests.
struct SpecificationProbe {
    /// The specification each variation starts from.
    let base: PushSpecification

    /// The payload of `base` changed by `configure`, built for `com.example.app`.
    func payload(_ configure: (inout PushSpecification) -> Void = { _ in }) throws -> JSONValue {
        var spec = base
        configure(&spec)
        return try JSONValue.parse(try spec.build(bundleID: "com.example.app").request.payload)
    }

    /// Why `base` changed by `configure` is refused (expected to be bad input, 65), or "no error".
    func refusal(_ configure: (inout PushSpecification) -> Void) -> String {
        do {
            _ = try payload(configure)
            return "no error"
        } catch let error as PayloadError {
            #expect(error.exitStatus == .dataError)
            return error.worded(naming: { "--" + $0.rawValue })
        } catch {
            return "unexpected \(error)"
        }
    }

    /// An alert with `title` and `body` to start from.
    static func alert(title: String, body: String? = nil) -> SpecificationProbe {
        var spec = PushSpecification()
        spec.content.title = title
        spec.content.body = body
        return SpecificationProbe(base: spec)
    }
}
