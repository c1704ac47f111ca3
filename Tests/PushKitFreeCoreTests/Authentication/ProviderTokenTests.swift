import Crypto
import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry
@testable import PushKitFreeRegistry

@Suite("provider token")
struct ProviderTokenTests {
    let key = ProviderKey(privateKey: P256.Signing.PrivateKey())

    @Test("signs Apple's header and claims, with a 64-byte raw signature that verifies")
    func signs() throws {
        let token = try ProviderToken.sign(key: key, keyID: "ABCDE12345", teamID: "TEAM678901", issuedAt: 1_795_000_000)
        let decoded = try DecodedProviderToken(compact: token.compact)
        #expect(decoded.header == ["alg": "ES256", "kid": "ABCDE12345"])
        #expect(decoded.claims == ["iss": "TEAM678901", "iat": 1_795_000_000])
        #expect(decoded.signature.count == 64)
        #expect(decoded.hasValidSignature(from: key.privateKey.publicKey))
        #expect(!decoded.hasValidSignature(from: P256.Signing.PrivateKey().publicKey))
    }

    @Test("a DER signature verifies only when DER is accepted; a 64-byte one either way")
    func derSignature() throws {
        let token = try ProviderToken.sign(key: key, keyID: "ABCDE12345", teamID: "TEAM678901", issuedAt: 1)
        let parts = token.compact.split(separator: ".")
        let raw = try #require(Base64URL.decode(parts[2]))
        let der = try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        let derToken = try DecodedProviderToken(compact: parts[0] + "." + parts[1] + "." + Base64URL.encode(der))
        #expect(!derToken.hasValidSignature(from: key.privateKey.publicKey))
        #expect(derToken.hasValidSignature(from: key.privateKey.publicKey, acceptingDER: true))
        #expect(!derToken.hasValidSignature(from: P256.Signing.PrivateKey().publicKey, acceptingDER: true))
        let rawToken = try DecodedProviderToken(compact: token.compact)
        #expect(rawToken.derSignature == nil && rawToken.hasValidSignature(from: key.privateKey.publicKey))
    }

    @Test(
        "malformed tokens say which part is wrong",
        arguments: [
            ("abc", "a provider token has 3 dot-separated parts, this one has 1"),
            ("a.b", "a provider token has 3 dot-separated parts, this one has 2"),
            ("!!!.e30.e30", "the header is not base64url"),
            ("e30.WzFd.e30", "the claims is not a JSON object"),
        ])
    func malformed(text: String, message: String) {
        #expect { try DecodedProviderToken(compact: text) } throws: { "\($0)" == message }
    }

    @Test("key ids and team ids must be 10 letters or digits")
    func identifiers() {
        #expect(ProviderCredentials.identifierProblem("ABCDE12345", name: "key id") == nil)
        #expect(
            ProviderCredentials.identifierProblem("ABC", name: "key id")
                == #"key id "ABC" has 3 characters; Apple's key ids have 10"#)
        #expect(
            ProviderCredentials.identifierProblem("ABCDE-1234", name: "team id")
                == #"team id "ABCDE-1234" contains "-"; Apple's team ids are letters and digits"#)
    }

    @Test("PEM parsing: PKCS#8 and SEC1 accepted, other curves and public keys refused with reasons")
    func pemParsing() throws {
        let p256 = P256.Signing.PrivateKey()
        #expect(
            try ProviderKey(pem: p256.pemRepresentation, origin: "k").fingerprint
                == ProviderKey(privateKey: p256).fingerprint)
        #expect { try ProviderKey(pem: P384.Signing.PrivateKey().pemRepresentation, origin: "key file k") } throws: {
            "\($0)".contains("another curve; APNs needs a P-256")
        }
        #expect { try ProviderKey(pem: p256.publicKey.pemRepresentation, origin: "key file k") } throws: {
            "\($0)".contains("holds a public key")
        }
        #expect { try ProviderKey(pem: "hello", origin: "key file k") } throws: {
            "\($0)".contains("not a PEM key file")
        }
    }
}

@Suite("provider token cache")
struct ProviderTokenCacheTests {
    let credentials = ProviderCredentials(
        key: ProviderKey(privateKey: P256.Signing.PrivateKey()), keyID: "ABCDE12345", teamID: "TEAM678901")

    func makeCache(_ clock: ManualClock) throws -> ProviderTokenCache {
        ProviderTokenCache(path: try makeTemporaryDirectory() + "/state/provider-tokens.json", clock: clock)
    }

    @Test("reuses the token for 50 minutes, mints a new one after")
    func reuse() throws {
        let clock = ManualClock()
        let cache = try makeCache(clock)
        let first = try cache.token(for: credentials)
        #expect(first.minted)
        clock.advance(by: 49 * 60)
        let second = try cache.token(for: credentials)
        #expect(!second.minted)
        #expect(second.token == first.token)
        clock.advance(by: 2 * 60) // 51 minutes after minting
        let third = try cache.token(for: credentials)
        #expect(third.minted)
        #expect(third.token != first.token)
        #expect(third.token.issuedAt == first.token.issuedAt + 51 * 60)
    }

    @Test("the cache file and its directory are private")
    func permissions() throws {
        let cache = try makeCache(ManualClock())
        _ = try cache.token(for: credentials)
        #expect(PosixFile.permissions(of: cache.path) == 0o600)
        #expect(PosixFile.permissions(of: PosixFile.parentDirectory(of: cache.path)) == 0o700)
    }

    @Test("refresh mints a new token; refresh of an already replaced token reuses the replacement")
    func refresh() throws {
        let clock = ManualClock()
        let cache = try makeCache(clock)
        let first = try cache.token(for: credentials).token
        clock.advance(by: 1 * 60)
        let refreshed = try cache.refresh(for: credentials)
        #expect(refreshed.minted && refreshed.token != first)
        #expect(try cache.token(for: credentials).token == refreshed.token)
        // A second process that also saw `first` rejected gets the replacement, not a third token.
        let late = try cache.refresh(for: credentials, rejected: first.compact)
        #expect(!late.minted && late.token == refreshed.token)
        // The replacement itself rejected: mint again.
        let again = try cache.refresh(for: credentials, rejected: refreshed.token.compact)
        #expect(again.minted)
    }

    @Test("a different key, key id or team id gets its own token")
    func keyedByIdentity() throws {
        let cache = try makeCache(ManualClock())
        let a = try cache.token(for: credentials).token
        let otherKey = ProviderCredentials(
            key: ProviderKey(privateKey: P256.Signing.PrivateKey()), keyID: "ABCDE12345", teamID: "TEAM678901")
        let otherID = ProviderCredentials(key: try credentials.signingKey(), keyID: "ZZZZZ12345", teamID: "TEAM678901")
        #expect(try cache.token(for: otherKey).token != a)
        #expect(try cache.token(for: otherID).token != a)
        #expect(try cache.token(for: credentials).token == a)
    }

    @Test("a token from the future (the clock went back) is not reused; a corrupt cache is replaced")
    func staleAndCorrupt() throws {
        let clock = ManualClock()
        let cache = try makeCache(clock)
        let first = try cache.token(for: credentials).token
        clock.advance(by: -10 * 60)
        #expect(try cache.token(for: credentials).token != first)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: cache.path))
        #expect(try cache.token(for: credentials).minted)
        #expect(try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: cache.path)))["version"] == .number(1))
    }

    @Test("a key whose token is cached is parsed only when a new token must be signed")
    func keyParsedOnlyToSign() throws {
        let directory = try makeTemporaryDirectory()
        let keyPath = directory + "/key.p8"
        let environment = [
            "HOME": directory, "PUSHKIT_STATE_DIR": directory + "/state", "APNS_KEY_PATH": keyPath,
            "APNS_KEY_ID": "ABCDE12345", "APNS_TEAM_ID": "TEAM678901",
        ]
        let configuration = try Configuration(
            flags: ConfigurationFlags(), environment: environment,
            file: ConfigurationFile(path: directory + "/config.json", exists: false, values: [:]))
        // PEM armour around bytes that are no key: only a parse can tell.
        let notAKey =
            "-----BEGIN PRIVATE KEY-----\n\(Data("not a key at all".utf8).base64EncodedString())\n"
            + "-----END PRIVATE KEY-----\n"
        try notAKey.write(toFile: keyPath, atomically: true, encoding: .utf8)
        #expect { try ProviderCredentials.load(from: configuration) } throws: {
            "\($0)".contains("is not a P-256 private key")
        }

        // A token cached under this file's fingerprint says the file parsed when it was signed.
        let fingerprint = try #require(ProviderKey.fingerprint(pem: notAKey))
        let cached = ProviderToken(compact: "cached.token.value", issuedAt: Int(Date().timeIntervalSince1970))
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        try ProviderTokenCache.serialize(["TEAM678901.ABCDE12345.\(fingerprint)": cached])
            .write(to: URL(fileURLWithPath: configuration.tokenCachePath))
        let credentials = try ProviderCredentials.load(from: configuration)
        #expect(credentials.keyFingerprint == fingerprint)
        let lease = try ProviderTokenCache(path: configuration.tokenCachePath).token(for: credentials)
        #expect(!lease.minted)
        #expect(lease.token == cached)
        #expect { try credentials.signingKey() } throws: { "\($0)".contains("is not a P-256 private key") }
        #expect { try ProviderTokenCache(path: configuration.tokenCachePath).refresh(for: credentials) } throws: {
            "\($0)".contains("is not a P-256 private key")
        }
    }

    @Test("the fingerprint found without parsing is the parsed key's")
    func fingerprintWithoutParsing() throws {
        let p256 = P256.Signing.PrivateKey()
        for text in [p256.pemRepresentation, "\r\n" + p256.pemRepresentation.replacing("\n", with: "\r\n")] {
            let parsed = try ProviderKey(pem: text, origin: "k")
            #expect(ProviderKey.fingerprint(pem: text) == parsed.fingerprint)
            #expect(parsed.fingerprint.count == 16)
        }
        #expect(ProviderKey.fingerprint(pem: "no armour") == nil)
        #expect(ProviderKey.fingerprint(pem: "-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----") == nil)
    }

    @Test("an unwritable state directory still yields a token, with a warning")
    func unwritable() throws {
        let cache = ProviderTokenCache(path: "/proc/pushkit-cannot-exist/provider-tokens.json", clock: ManualClock())
        let lease = try cache.token(for: credentials)
        #expect(lease.minted)
        #expect(lease.warning?.contains("provider token not cached") == true)
    }
}
