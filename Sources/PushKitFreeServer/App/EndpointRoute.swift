/// The routes of `register-apns serve`, each one's method and path: the catalogue the 405 answers
/// and the OpenAPI document are checked against.
///
/// `EndpointRouter` adds every route to Hummingbird's `Router`, in the group of its rules
/// (`EndpointRouteGroups`), and a test checks that the two agree. The router dispatches; when it
/// finds nothing, `match` tells a known path with another method (405 with `Allow`) from anything
/// else (404). `HEAD` is served wherever `GET` is.
package enum EndpointRoute: String, Sendable, CaseIterable {
    case health
    case liveness
    case metrics
    case registerAPNs
    case registerDevice
    case unregisterDevice
    case listDevices
    case deviceHook
    case registerSubscription
    case sendToAll
    case sendToDevice
    case notifyHook
    case triggerReplyFinished
    case gatewaySocket
    case gatewaySocketRoot
    case gatewayMessage
    case agentTools
    case ntfyJSON
    case ntfyJSONPut
    case ntfyPublish
    case ntfyPublishPut
    case barkPush
    case barkBody
    case barkBodyPost
    case barkTitle
    case barkTitlePost
    case barkSubtitle
    case barkSubtitlePost

    /// The HTTP method.
    package var method: String {
        switch self {
        case .health, .liveness, .metrics, .listDevices, .gatewaySocket, .gatewaySocketRoot, .barkBody, .barkTitle,
            .barkSubtitle:
            "GET"
        case .unregisterDevice: "DELETE"
        case .ntfyJSONPut, .ntfyPublishPut: "PUT"
        default: "POST"
        }
    }

    /// The path; `{token}` stands for one path segment.
    package var path: String {
        switch self {
        case .health: "/health"
        case .liveness: "/health/live"
        case .metrics: "/metrics"
        case .registerAPNs: "/register-apns"
        case .registerDevice: "/api/v1/devices/register"
        case .unregisterDevice: "/api/v1/devices/{token}"
        case .listDevices: "/api/v1/devices"
        case .deviceHook: "/hooks/ios-device"
        case .registerSubscription: "/registerSubscription"
        case .sendToAll: "/api/v1/notifications/send"
        case .sendToDevice: "/api/v1/notifications/send/{token}"
        case .notifyHook: "/hooks/ios-notify"
        case .triggerReplyFinished: "/triggerReplyFinished"
        case .gatewaySocket: "/gateway/ws"
        // The Ember app's gateway URL is a bare `ws://host:port`: its WebSocket upgrades at `/`.
        case .gatewaySocketRoot: "/"
        case .gatewayMessage: "/gateway/messages"
        case .agentTools: "/mcp"
        case .ntfyJSON, .ntfyJSONPut: "/"
        // Hummingbird's router needs one name per position: the ntfy topic and the Bark key are
        // `{key}`, and Bark's texts are named by position (docs/openapi.yaml names them by meaning:
        // `/{key}/{title}/{body}`).
        case .ntfyPublish, .ntfyPublishPut: "/{key}"
        case .barkPush: "/push"
        case .barkBody, .barkBodyPost: "/{key}/{first}"
        case .barkTitle, .barkTitlePost: "/{key}/{first}/{second}"
        case .barkSubtitle, .barkSubtitlePost: "/{key}/{first}/{second}/{third}"
        }
    }

    /// The notifier protocol a route speaks, whose clients read its own answer and error shapes.
    package enum Notifier: Sendable {
        case ntfy, bark
    }

    /// The protocol of another notifier this route speaks, `nil` for the native routes.
    package var notifier: Notifier? {
        switch self {
        case .ntfyJSON, .ntfyJSONPut, .ntfyPublish, .ntfyPublishPut: .ntfy
        case .barkPush, .barkBody, .barkBodyPost, .barkTitle, .barkTitlePost, .barkSubtitle, .barkSubtitlePost: .bark
        default: nil
        }
    }

    /// Whether the route's first segment is a parameter (ntfy's topic, Bark's key, both `/{key}`):
    /// such a route never takes a path whose first segment is a reserved name.
    var startsWithParameter: Bool { path.hasPrefix("/{") }

    /// First path segments no ntfy topic or Bark key may be: those of every other route, and those
    /// kept for routes to come (`mcp`, and ntfy's own API under `v1`). A path beginning with one
    /// belongs to the native routes alone, so `GET /health/x` is 404 and `POST /metrics` 405, never
    /// a notification to a group named `health` or `metrics`.
    package static let reservedNames: Set<String> = {
        var names: Set<String> = ["mcp", "v1", "push"]
        for route in allCases where !route.startsWithParameter {
            if let first = route.path.split(separator: "/").first { names.insert(String(first)) }
        }
        return names
    }()

    /// The notifier route `routePath` (Hummingbird's, `/{key}`) and `path` (the request's) address:
    /// `nil` for a native route, or for a path whose first segment is reserved (`reservedNames`),
    /// which is answered as a native path is.
    package static func notifier(routePath: String?, path: String) -> Notifier? {
        guard let routePath else { return nil }
        let first = path.split(separator: "/").first.map { percentDecoded($0) }
        if routePath.hasPrefix("/{"), let first, reservedNames.contains(first) { return nil }
        return allCases.first { $0.path == routePath && $0.notifier != nil }?.notifier
    }

    /// Whether the route is one of OpenClaw's (`/api/v1/...`), whose clients read FastAPI's shapes:
    /// errors carry `detail`, tokens are shown as their first 16 characters and `...`.
    package var isOpenClaw: Bool { Self.isOpenClaw(path: path) }

    /// Whether `path` (a request's, or a route's) is under OpenClaw's `/api/v1/`.
    package static func isOpenClaw(path: String) -> Bool { path.hasPrefix("/api/v1/") }

    /// Whether `path` is one of the Ember gateway's (`/gateway/...`), whose errors are the protocol's
    /// `{"type": "error", "message": ...}` message.
    package static func isGateway(path: String) -> Bool { path.hasPrefix("/gateway/") }

    /// What a request's method and path address.
    package enum Match: Sendable, Equatable {
        /// A route, with its first `{...}` segment when its path has one (percent-decoded).
        case route(EndpointRoute, parameter: String?)
        /// The path exists, but not for this method; `allowed` lists the methods it takes.
        case methodNotAllowed(allowed: [String])
        /// No route has this path.
        case notFound
    }

    /// Matches `method` and `path` (without the query) against the table. A trailing slash is
    /// ignored; `HEAD` matches the `GET` route of the path (and `Allow` names it beside `GET`).
    ///
    /// As in OpenAPI, a path some route names literally belongs to those routes alone:
    /// `/api/v1/devices/register` is never a `{token}`, so `DELETE` there is 405 with `Allow: POST`.
    package static func match(method requested: String, path rawPath: String) -> Match {
        let method = requested == "HEAD" ? "GET" : requested
        var path = Substring(rawPath)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let reserved = segments.dropFirst().first.map { reservedNames.contains(percentDecoded($0)) } ?? false
        let candidates = patterns.compactMap { route, pattern in
            reserved && route.startsWithParameter
                ? nil : Self.parameter(of: pattern, in: segments).map { (route: route, parameter: $0) }
        }
        let literal = candidates.filter { $0.parameter == nil }
        let owners = literal.isEmpty ? candidates : literal
        if let hit = owners.first(where: { $0.route.method == method }) {
            return .route(hit.route, parameter: hit.parameter)
        }
        var allowed: [String] = []
        for owner in owners where !allowed.contains(owner.route.method) {
            allowed.append(owner.route.method)
            if owner.route.method == "GET" { allowed.append("HEAD") }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    /// Every route with its path split into segments, once (matching runs on every request).
    private static let patterns = allCases.map { ($0, $0.path.split(separator: "/", omittingEmptySubsequences: false)) }

    /// `.some(nil)` when the route's literal path matches, `.some(value)` for its first `{...}`
    /// segment, `nil` when the path is not this route's.
    private static func parameter(of pattern: [Substring], in segments: [Substring]) -> String?? {
        guard pattern.count == segments.count else { return nil }
        var value: String?
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix("{") {
                guard !actual.isEmpty else { return nil }
                if value == nil { value = Self.percentDecoded(actual) }
            } else if expected != actual {
                return nil
            }
        }
        return .some(value)
    }

    /// `%XX` escapes decoded; malformed escapes are kept as written.
    static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
