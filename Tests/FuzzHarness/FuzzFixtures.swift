import PushKitFreeCore

/// Fixed values the targets judge against, so that a corpus file means the same on every run.
enum FuzzFixtures {
    /// A P-256 key made for these fuzz targets only (never used with Apple): the emulator target
    /// trusts it, and corpus files carry provider tokens it signed.
    static let providerKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1zNjx58gVbXCN36e
        Gi63DhI+/finFql4FIpzwycfGjahRANCAAQZqHl/ZruHxeWBsrXztnf2TurApqmV
        +Llg/p/iqcVDNAgI/RoqtTMVsrzOR2m/uTljBMLGrh6uGKV7mlxaNZBB
        -----END PRIVATE KEY-----
        """
    static let keyID = "FUZZKEY123"
    static let teamID = "FUZZTEAM12"
    static let bundleID = "com.example.app"

    /// The key parsed once.
    static let providerKey: ProviderKey = {
        do throws(ProviderKeyError) {
            return try ProviderKey(pem: providerKeyPEM, origin: "the fuzz fixture key")
        } catch {
            fatalError("the fuzz fixture key does not parse: \(error.message)")
        }
    }()
}
