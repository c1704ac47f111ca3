#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// One line per request on standard error:
/// `2026-11-23T12:00:00.123Z 127.0.0.1 POST /register-apns 200 0.8ms token=0a1b2c3d...ef01`.
///
/// Device tokens are masked, in the path as in the `token=` field; secrets, request bodies and
/// provider tokens are never written.
///
/// A message over the gateway's WebSocket gets a line of its own, with the method `WS`, the status
/// an HTTP request of it would have had (200, or its error's), and its type:
/// `... 127.0.0.1 WS /gateway/ws 200 1.1ms token=0a1b2c3d...ef01 message=device_token`.
enum AccessLog {
    static func line(
        client: String, method: String, path: String, status: Int, seconds: Double, token: DeviceToken?,
        message: String? = nil
    ) -> String {
        var line =
            "\(ISO8601Timestamp.format(Date())) \(client) \(method) \(maskedPath(path)) \(status) \(milliseconds(seconds))ms"
        if let token { line += " token=\(token.masked)" }
        if let message { line += " message=\(message)" }
        return line + "\n"
    }

    /// `path` as the log shows it: tokens masked (`maskedPath`), and every segment after the first
    /// written `…` on the routes whose path begins with a parameter and goes on (Bark's path forms,
    /// `/key/title/body`, carry a notification's text) and on every path no route matched (404, or
    /// 405 for another method), unless its first segment is one of the server's own
    /// (`RouteCatalogue.reservedNames`): such a path may be a Bark message sent with the wrong
    /// method or shape, and no notification's text is logged (a request's body never is either).
    static func loggedPath(_ path: String, routePath: String?, routes: RouteCatalogue) -> String {
        var masksText = routePath.map { $0.hasPrefix("/{") && $0.dropFirst().contains("/") } ?? true
        if masksText, path.split(separator: "/").first == nil || routes.startsWithReservedName(path) {
            masksText = false
        }
        guard masksText else { return maskedPath(path) }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for index in segments.indices.dropFirst(2) where !segments[index].isEmpty { segments[index] = "…" }
        return maskedPath(segments.joined(separator: "/"))
    }

    /// The path with every segment that is a device token masked, written plainly or
    /// percent-encoded (`%37%34...` is the same token to the routes, so it is to the log).
    static func maskedPath(_ path: String) -> String {
        guard path.utf8.count >= DeviceToken.minimumBytes * 2 else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.utf8.count >= DeviceToken.minimumBytes * 2,
                let token = try? DeviceToken(validating: RouteCatalogue.percentDecoded(segment), transport: nil)
            else { return String(segment) }
            return token.masked
        }.joined(separator: "/")
    }

    private static func milliseconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
