/// A delivery that shares a run's transport loop with another: FCM's requests in flight beside
/// APNs', over the same libcurl multi handle (each host on its own multiplexed connection).
///
/// A lane is asked for its next request as the transport has room, and told each answer to a
/// request it supplied; tags are its own (the loop maps them). It ends when it answers `.exhausted`
/// with nothing in flight.
package protocol DeliveryLane: AnyObject {
    /// The lane's next request, as `HTTP2Transport.perform`'s `next` supplies one.
    func next(at now: ContinuousClock.Instant) -> HTTP2RequestSupply
    /// The answer to a request the lane supplied, with the lane's own tag.
    func handle(_ response: HTTP2Response)
}

/// Runs several deliveries in one transport loop.
package enum DeliveryLanes {
    /// Runs the primary delivery (`next`, `onResponse`) and `lanes` over `client` until every one is
    /// exhausted and nothing is in flight, or `deadline` passes: requests are taken from each in
    /// turn, so neither waits behind the other, and each answer goes back to the one that asked.
    /// With no lanes this is `client.perform` itself.
    package static func perform(
        on client: any HTTP2Transport, deadline: ContinuousClock.Instant,
        cutoff: () -> ContinuousClock.Instant?, alongside lanes: [any DeliveryLane],
        next: (ContinuousClock.Instant) -> HTTP2RequestSupply, onResponse: (HTTP2Response) -> Void
    ) {
        guard !lanes.isEmpty else {
            client.perform(deadline: deadline, cutoff: cutoff, next: next, onResponse: onResponse)
            return
        }
        let sources = lanes.count + 1
        var turn = 0
        client.perform(
            deadline: deadline, cutoff: cutoff,
            next: { now in
                var earliest: ContinuousClock.Instant?
                for step in 0..<sources {
                    let source = (turn + step) % sources
                    let supply = source == 0 ? next(now) : lanes[source - 1].next(at: now)
                    switch supply {
                    case .request(var request):
                        request.tag = request.tag * sources + source
                        turn = (source + 1) % sources
                        return .request(request)
                    case .notBefore(let instant):
                        earliest = min(earliest ?? instant, instant)
                    case .exhausted:
                        continue
                    }
                }
                return earliest.map(HTTP2RequestSupply.notBefore) ?? .exhausted
            },
            onResponse: { response in
                let source = response.tag % sources
                let own = HTTP2Response(tag: response.tag / sources, result: response.result)
                if source == 0 { onResponse(own) } else { lanes[source - 1].handle(own) }
            })
    }
}
