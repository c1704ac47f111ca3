import Hummingbird
import Synchronization

/// The endpoint's routes as its router holds them, each one's method and path (`{token}` stands
/// for one segment): what the 405 answers, the names no ntfy topic or Bark key may take, and the
/// contract test read. `EndpointRouter.make` records the router's own route list once every route
/// group has added its routes, so there is no second list to keep in step with the router.
///
/// The router dispatches; when it finds nothing, `match` tells a known path with another method
/// (405 with `Allow`) from anything else (404). `HEAD` is served wherever `GET` is.
package final class RouteCatalogue: Sendable {
    /// One route: its method and its path as the router names it (`/api/v1/devices/{token}`).
    package struct Route: Hashable, Sendable, CustomStringConvertible {
        package let method: String
        package let path: String

        package init(method: String, path: String) {
            self.method = method
            self.path = path
        }

        package var description: String { "\(method) \(path)" }

        /// Whether the route's first segment is a parameter (ntfy's topic, Bark's key, both `/{key}`):
        /// such a route never takes a path whose first segment is a reserved name.
        var startsWithParameter: Bool { path.hasPrefix("/{") }
    }

    /// What a request's method and path address.
    package enum Match: Sendable, Equatable {
        /// A route, with its first `{...}` segment when its path has one (percent-decoded).
        case route(Route, parameter: String?)
        /// The path exists, but not for this method; `allowed` lists the methods it takes.
        case methodNotAllowed(allowed: [String])
        /// No route has this path.
        case notFound
    }

    /// The routes, their segments and the reserved names, replaced whole by `record`.
    private struct Table: Sendable {
        var routes: [Route] = []
        /// Every route with its path split into segments, once (matching runs on every 404).
        var patterns: [(route: Route, segments: [Substring])] = []
        var reservedNames: Set<String> = RouteCatalogue.keptForLater
    }

    private let table = Mutex(Table())

    /// First path segments kept for routes to come (ntfy's own API under `v1`), reserved like
    /// those of the routes.
    static let keptForLater: Set<String> = ["v1"]

    /// An empty catalogue, for `record` to fill.
    init() {}

    /// A catalogue of `routes`.
    package convenience init(_ routes: [Route]) {
        self.init()
        record(routes)
    }

    /// Takes the router's routes as the catalogue: called once every route group has added its own.
    func record<Context>(_ router: Router<Context>) {
        record(router.routes.map { Route(method: $0.method.rawValue, path: $0.path.description) })
    }

    /// Takes `routes` as the catalogue.
    func record(_ routes: [Route]) {
        var table = Table(routes: routes)
        table.patterns = routes.map { ($0, $0.path.split(separator: "/", omittingEmptySubsequences: false)) }
        for route in routes where !route.startsWithParameter {
            if let first = route.path.split(separator: "/").first { table.reservedNames.insert(String(first)) }
        }
        self.table.withLock { $0 = table }
    }

    /// Every route, as the router lists them.
    package var routes: [Route] { table.withLock { $0.routes } }

    /// First path segments no ntfy topic or Bark key may be: those of every route whose path does
    /// not begin with a parameter, and those kept for routes to come. A path beginning with one
    /// belongs to those routes alone, so `GET /health/x` is 404 and `POST /metrics` 405, never a
    /// notification to a group named `health` or `metrics`.
    package var reservedNames: Set<String> { table.withLock { $0.reservedNames } }

    /// Whether the first segment of `path` (a request's) is a reserved name.
    func startsWithReservedName(_ path: String) -> Bool {
        guard let first = path.split(separator: "/").first else { return false }
        return reservedNames.contains(Self.percentDecoded(first))
    }

    /// Matches `method` and `path` (without the query) against the routes. A trailing slash is
    /// ignored; `HEAD` matches the `GET` route of the path (and `Allow` names it beside `GET`).
    ///
    /// As in OpenAPI, a path some route names literally belongs to those routes alone:
    /// `/api/v1/devices/register` is never a `{token}`, so `DELETE` there is 405 with `Allow: POST`.
    package func match(method requested: String, path rawPath: String) -> Match {
        let table = table.withLock { $0 }
        let method = requested == "HEAD" ? "GET" : requested
        var path = Substring(rawPath)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let reserved = segments.dropFirst().first.map { table.reservedNames.contains(Self.percentDecoded($0)) } ?? false
        let candidates = table.patterns.compactMap { route, pattern in
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
