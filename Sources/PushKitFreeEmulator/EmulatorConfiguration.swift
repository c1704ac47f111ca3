import PushKitFreeCore

/// Everything `apns-emulator` was told: where to listen, what to trust, which devices and faults
/// to script. Built by the command from its flags and the shared configuration.
package struct EmulatorConfiguration: Sendable {
    /// The address to bind, `127.0.0.1` unless `--host`.
    package var host = "127.0.0.1"
    /// The port; 0 picks a free one.
    package var port = 2197
    /// The port of the channel management listener (Apple's `api-manage-broadcast` hosts); `nil`
    /// serves none, 0 picks a free port. Same address and TLS as the push listener.
    package var managePort: Int?
    /// How many broadcast channels one bundle id may have (Apple: 10,000).
    package var channelLimit = EmulatorChannels.appleLimit
    /// `--strict-broadcast`: refuse what Apple's pages do not show but peers send (see
    /// `ChannelRequestJudge`).
    package var strictBroadcast = false
    /// The environment the emulator plays: sandbox answers also carry `apns-unique-id`.
    package var environment: APNsEnvironment = .production
    /// The provider key, ids and bundle id requests are judged against.
    package var trust: APNsRequestValidator.Trust
    /// SETTINGS_MAX_CONCURRENT_STREAMS once a connection has sent a valid provider token (before
    /// that it is 1, as at APNs).
    package var maximumConcurrentStreams = 1000
    /// When set, token updates are not rate-limited (no `429 TooManyProviderTokenUpdates`).
    package var lenientTokenUpdates = false
    /// When set, a new token for the key within 20 minutes is refused on any connection, not only
    /// on the connection that used the previous one.
    package var globalTokenUpdates = false
    /// Tokens answered `410 Unregistered` or `400 BadDeviceToken` from the start.
    package var deviceStates = ScriptedDeviceStates()
    /// `--script-file`: answers scripted per device token, request by request.
    package var deviceScript = DeviceScript()
    /// `--fail-first`.
    package var failFirst: FailFirstFault?
    /// `--fail-rate`.
    package var failRate: FailRateFault?
    /// Seed for `--fail-rate`'s random choices, so runs can be repeated.
    package var seed: UInt64?
    /// Milliseconds to wait before answering each request.
    package var delayMilliseconds: Int64 = 0
    /// Send GOAWAY and close each connection after this many streams.
    package var goAwayAfter: Int?
    /// Reset each connection (TCP RST, no answer) when its stream number this plus one arrives.
    package var dropAfter: Int?
    /// The first connection to open stream this plus one goes silent (see `ConnectionSilencer`);
    /// later connections are served normally.
    package var goSilentAfter: Int?
    /// The service account whose assertions the FCM token endpoint accepts and the token URI they
    /// must name; `nil` serves no FCM routes.
    package var fcm: (account: EmulatorServiceAccount, tokenURI: String)?
    /// `--answer-ca`: CA certificates (PEM) trusted besides the system's roots when
    /// `POST /emulator/answer` posts to an https answer URL.
    package var answerTrustPEM: String?
    /// The server certificate and key.
    package var tls: EmulatorTLSMaterial
    /// Event-loop threads; defaults to the number of cores.
    package var threads: Int?

    /// The defaults: port 2197 on loopback, production, no scripts or faults.
    package init(trust: APNsRequestValidator.Trust, tls: EmulatorTLSMaterial) {
        self.trust = trust
        self.tls = tls
    }
}
