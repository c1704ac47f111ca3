extension Duration {
    /// The duration in seconds, as a `Double` (reports, access log, metrics, rate limiting).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension ContinuousClock.Instant {
    /// Seconds from this instant to now.
    package var secondsElapsed: Double {
        duration(to: .now).inSeconds
    }
}
