import Hummingbird
import PushKitFreeCore
import Synchronization

/// The shape a family of routes answers its errors in, when its clients read another than the
/// endpoint's `{"error": ...}`: an adapter under `Compatibility/` registers its shape with the
/// route groups (`EndpointRouteGroups.answerErrors(in:)`), and `EndpointErrorMiddleware` answers
/// each error in the shape of the first that claims the request.
///
/// The shapes are asked by `EndpointErrorMiddleware` at the top of the router, not added as group
/// middleware, because some errors never reach a group: the 404 or 405 of a path no route matched
/// (`DELETE /api/v1/devices/register` answers in OpenClaw's shape), and the 400 of a request without
/// `Host`.
protocol ErrorShape: Sendable {
    /// Whether errors answering `request` take this shape; `routePath` is the route the router
    /// matched (`/api/v1/devices/{token}`), `nil` when none did.
    func claims(_ request: Request, routePath: String?, routes: RouteCatalogue) -> Bool

    /// The body answering `error`; `requestID` is named when the error has a log detail.
    func body(of error: EndpointError, requestID: String?) -> JSONValue
}

/// The error shapes the adapters registered, asked in the order they were added.
final class ErrorShapes: Sendable {
    private let shapes = Mutex<[any ErrorShape]>([])

    /// Adds `shape`, asked after those added before it.
    func add(_ shape: any ErrorShape) {
        shapes.withLock { $0.append(shape) }
    }

    /// The body answering `error` to `request`: in the first claiming shape, else the endpoint's.
    func body(
        of error: EndpointError, answering request: Request, routePath: String?, routes: RouteCatalogue,
        requestID: String?
    ) -> JSONValue {
        let shape = shapes.withLock { shapes in
            shapes.first { $0.claims(request, routePath: routePath, routes: routes) }
        }
        return shape?.body(of: error, requestID: requestID) ?? error.body(requestID: requestID)
    }
}
