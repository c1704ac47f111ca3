import Hummingbird

/// What the ntfy and Bark routes read from a request besides its body.
enum NotifierRequest {
    /// The headers (names lowercased) and query parameters of `request`.
    static func parameters(_ request: Request) -> NtfyMessage.Parameters {
        var headers: [String: String] = [:]
        for field in request.headers where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        return NtfyMessage.Parameters(headers: headers, query: query(request))
    }

    /// The query parameters, percent-decoded, the first of each name.
    static func query(_ request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where query[String(key)] == nil {
            query[String(key)] = String(value)
        }
        return query
    }

    /// The path parameter `value`, percent-decoded; a path whose first segment is a reserved name
    /// (`RouteCatalogue.reservedNames`) is answered as the native routes answer it (405 with
    /// `Allow`, or 404), so a topic or key never stands in for one of them.
    static func reservedCheck(
        _ request: Request, parameter value: String?, routes: RouteCatalogue
    ) throws(EndpointError) -> String {
        let path = request.uri.path
        if routes.startsWithReservedName(path) {
            let method = request.method.rawValue
            if case .methodNotAllowed(let allowed) = routes.match(method: method, path: path) {
                throw EndpointError.methodNotAllowed(method, path: path, allowed: allowed)
            }
            throw EndpointError.notFound("no route \(method) \(path); see docs/openapi.yaml for the routes")
        }
        return RouteCatalogue.percentDecoded(Substring(value ?? ""))
    }
}
