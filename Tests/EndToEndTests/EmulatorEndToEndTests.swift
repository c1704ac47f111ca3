import Foundation
import Testing

let deviceA = String(repeating: "a1", count: 32)
let deviceB = String(repeating: "b2", count: 32)

/// `apns-emulator` run as users run it, driven by the `curl` command line over HTTP/2.
@Suite("apns-emulator end to end")
struct EmulatorEndToEndTests {
    let setup: ProviderSetup

    init() throws {
        setup = try ProviderSetup()
    }

    @Test("prints one listening line with the CA; curl --http2 with --cacert (verification on) gets 200 over HTTP/2")
    func acceptsValidPush() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let token = try setup.token()
        let response = try Curl.push(
            to: emulator, deviceToken: deviceA, token: token,
            extraHeaders: [
                ("apns-push-type", "alert"), ("apns-priority", "10"), ("apns-collapse-id", "greeting"),
                ("apns-expiration", "0"),
            ])
        #expect(response.exitCode == 0, "\(response.stderr)")
        #expect(response.status == 200)
        #expect(response.httpVersion == "2")
        #expect(response.body.isEmpty)
        let apnsID = try #require(response.headers["apns-id"])
        #expect(apnsID == apnsID.lowercased() && UUID(uuidString: apnsID) != nil)
        #expect(response.headers["apns-unique-id"] == nil, "production answers carry no apns-unique-id")

        let lines = emulator.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("listening on https://127.0.0.1:\(emulator.port) (ca: ") == true)
        #expect(emulator.caPath.hasPrefix(setup.directory.file("home")), "the CA is kept in the state directory")
        let record = try #require(emulator.records().first)
        #expect(record["status"] as? Int == 200)
        #expect(record["reason"] is NSNull)
        #expect(record["device_token"] as? String == deviceA)
        #expect(record["topic"] as? String == ProviderSetup.topic)
        #expect(record["push_type"] as? String == "alert")
        #expect(record["priority"] as? Int == 10)
        #expect(record["collapse_id"] as? String == "greeting")
        #expect(record["expiration"] as? Int == 0)
        #expect(record["apns_id"] as? String == apnsID)
        #expect(((record["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? String == "Hello")
        let claims = try #require((record["provider_token"] as? [String: Any])?["claims"] as? [String: Any])
        #expect(claims["iss"] as? String == ProviderSetup.teamID)
        #expect(claims["iat"] is Int)
        #expect(!emulator.stdout.contains(token), "the raw provider token is never recorded")
        #expect(emulator.stderr.contains(" 200 alert "), "one-line summary on stderr: \(emulator.stderr)")
    }

    @Test("apns-id is echoed; in sandbox the answer adds apns-unique-id")
    func echoesIDAndSandboxUniqueID() throws {
        let emulator = try RunningEmulator(["--environment", "sandbox"], environment: setup.environment)
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = try Curl.push(
            to: emulator, deviceToken: deviceA, token: try setup.token(), extraHeaders: [("apns-id", id)])
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == id)
        let unique = try #require(response.headers["apns-unique-id"])
        #expect(UUID(uuidString: unique) != nil)
        #expect(emulator.records().first?["apns_unique_id"] as? String == unique)
    }

    @Test("HTTP/2 with prior knowledge on the same port (curl --http2-prior-knowledge)")
    func priorKnowledge() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let response = try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token(), priorKnowledge: true)
        #expect(response.exitCode == 0, "\(response.stderr)")
        #expect(response.status == 200)
        #expect(response.httpVersion == "2")
    }

    @Test("an iat written as a numeric string is accepted, as APNs accepts it, and noted; --strict-iat refuses it")
    func numericStringIssuedAt() throws {
        let issued = Int(Date().timeIntervalSince1970)
        let token = try ProviderTokenMaker.sign(
            keyPath: setup.key.pkcs8Path, claims: #"{"iss":"\#(ProviderSetup.teamID)","iat":"\#(issued)"}"#)
        let emulator = try RunningEmulator(environment: setup.environment)
        let accepted = try Curl.push(to: emulator, deviceToken: deviceA, token: token)
        #expect(accepted.status == 200, "\(accepted.body)")
        let record = try #require(emulator.waitForRecords(1).first)
        #expect((record["detail"] as? String)?.contains("iat is the string \"\(issued)\"") == true, "\(record)")
        #expect(
            ((record["provider_token"] as? [String: Any])?["claims"] as? [String: Any])?["iat"] as? String
                == String(issued))

        let strict = try RunningEmulator(["--strict-iat"], environment: setup.environment)
        let refused = try Curl.push(to: strict, deviceToken: deviceA, token: token)
        #expect(refused.status == 403 && refused.body.contains("InvalidProviderToken"))
        #expect((strict.waitForRecords(1).first?["detail"] as? String)?.contains("--strict-iat") == true)
    }

    @Test("--strict-payload: a critical sound louder than 1 is 400 BadPayload naming the rule; accepted without it")
    func strictPayload() throws {
        let loud = #"{"aps":{"alert":"Fire","sound":{"critical":1,"name":"default","volume":1.5}}}"#
        let strict = try RunningEmulator(["--strict-payload"], environment: setup.environment)
        let refused = try Curl.push(to: strict, deviceToken: deviceA, token: try setup.token(), body: loud)
        #expect(refused.status == 400 && refused.body.contains("BadPayload"), "\(refused.body)")
        let record = try #require(strict.waitForRecords(1).first)
        #expect(
            record["detail"] as? String
                == "aps.sound.volume must be a number from 0 to 1, not 1.5 (--strict-payload)", "\(record)")
        let quiet = #"{"aps":{"alert":"Fire","sound":{"critical":1,"name":"default","volume":0.8}}}"#
        let accepted = try Curl.push(to: strict, deviceToken: deviceA, token: try setup.token(), body: quiet)
        #expect(accepted.status == 200, "\(accepted.body)")

        let lenient = try RunningEmulator(environment: setup.environment)
        let delivered = try Curl.push(to: lenient, deviceToken: deviceA, token: try setup.token(), body: loud)
        #expect(delivered.status == 200, "\(delivered.body)")
    }

    @Test("TLS verification is really on: without --cacert curl refuses the certificate")
    func certificateIsVerified() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let response = try Curl.request(
            emulator.baseURL + "/3/device/" + deviceA, headers: [("authorization", "bearer x")], body: "{}")
        #expect(response.exitCode == 60, "curl: \(response.stderr)")
        #expect(response.status == 0)
        #expect(emulator.records().isEmpty)
    }

    @Test("an HTTP/1.1 client is told, in HTTP/1.1, that only HTTP/2 is spoken")
    func refusesHTTP1() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let result = try BuiltTool.runSystem(
            "curl", ["-sS", "--http1.1", "-w", "\n%{http_code}", emulator.plainURL + "/3/device/" + deviceA])
        #expect(result.stdout.hasSuffix("\n505"))
        #expect(result.stdout.contains("HTTP/2 only"))
    }

    @Test("the generated CA is kept and reused across runs, so a configured ca_file keeps working")
    func certificateReused() throws {
        let first = try RunningEmulator(environment: setup.environment)
        let ca = try String(contentsOfFile: first.caPath, encoding: .utf8)
        #expect(first.terminate() == 0)
        let second = try RunningEmulator(environment: setup.environment)
        #expect(second.caPath == first.caPath)
        #expect(try String(contentsOfFile: second.caPath, encoding: .utf8) == ca)
        #expect(try Curl.push(to: second, deviceToken: deviceA, token: try setup.token()).status == 200)
    }

    @Test("--cert and --cert-key serve a certificate made by openssl")
    func userCertificate() throws {
        let (cert, key) = try setup.directory.selfSignedCertificate(named: "cert")
        let emulator = try RunningEmulator(["--cert", cert, "--cert-key", key], environment: setup.environment)
        #expect(emulator.caPath == cert)
        let response = try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token())
        #expect(response.status == 200, "\(response.stderr)")
    }

    @Test("SETTINGS_MAX_CONCURRENT_STREAMS is 1 until a valid provider token, then --max-streams (seen by nghttp)")
    func streamLimit() throws {
        let emulator = try RunningEmulator(["--max-streams", "777"], environment: setup.environment)
        let body = try setup.directory.write("body.json", #"{"aps":{}}"#)
        func advertisedLimits(token: String) throws -> [String] {
            let result = try BuiltTool.runSystem(
                "nghttp",
                [
                    "-nv", "-d", body, "-H", "authorization: bearer \(token)", "-H",
                    "apns-topic: \(ProviderSetup.topic)",
                    emulator.baseURL + "/3/device/" + deviceA,
                ])
            #expect(result.status == 0, "\(result.stderr)")
            var limits: [String] = []
            var receivingSettings = false
            for line in result.stdout.split(separator: "\n") {
                if line.contains("] recv SETTINGS") || line.contains("] send SETTINGS") {
                    receivingSettings = line.contains("recv")
                } else if line.contains("] ") {
                    receivingSettings = false
                } else if receivingSettings, let range = line.range(of: "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):") {
                    limits.append(String(line[range.upperBound...].dropLast()))
                }
            }
            return limits
        }
        let unauthenticated = try advertisedLimits(token: "not-a-token")
        #expect(unauthenticated == ["1"], "an invalid token does not raise the limit")
        let authenticated = try advertisedLimits(token: try setup.token())
        #expect(authenticated == ["1", "777"])
    }
}

/// One request per Apple reason the issue lists, each judged by the built emulator and seen by curl.
@Suite("apns-emulator reasons")
struct EmulatorReasonTests {
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let status: Int
        let reason: String
        var method = "POST"
        var path = "/3/device/" + deviceA
        var headers: [(String, String)] = []
        var body: String? = #"{"aps":{"alert":"Hello"}}"#
        /// Replaces the valid token: nil keeps it, "" sends none.
        var token: (@Sendable (ProviderSetup) throws -> String)?
        var description: String { "\(status) \(reason) (\(name))" }
    }

    static let cases: [Case] = [
        Case(name: "GET", status: 405, reason: "MethodNotAllowed", method: "GET", body: nil),
        Case(name: "other path", status: 404, reason: "BadPath", path: "/3/devices/" + deviceA),
        Case(name: "no token in path", status: 400, reason: "MissingDeviceToken", path: "/3/device/"),
        Case(name: "odd-length token", status: 400, reason: "BadDeviceToken", path: "/3/device/abc"),
        Case(name: "non-hex token", status: 400, reason: "BadDeviceToken", path: "/3/device/xyzw"),
        Case(
            name: "uppercase apns-id", status: 400, reason: "BadMessageId",
            headers: [("apns-id", "123E4567-E89B-12D3-A456-426614174000")]),
        Case(name: "no topic", status: 400, reason: "MissingTopic", headers: [("apns-topic", "")]),
        Case(
            name: "other app's topic", status: 400, reason: "DeviceTokenNotForTopic",
            headers: [("apns-topic", "com.example.other")]),
        Case(
            name: "voip without .voip", status: 400, reason: "DeviceTokenNotForTopic",
            headers: [("apns-push-type", "voip")]),
        Case(
            name: "unknown push type", status: 400, reason: "InvalidPushType", headers: [("apns-push-type", "banner")]),
        Case(name: "priority 7", status: 400, reason: "BadPriority", headers: [("apns-priority", "7")]),
        Case(
            name: "background at 10", status: 400, reason: "BadPriority",
            headers: [("apns-push-type", "background"), ("apns-priority", "10")],
            body: #"{"aps":{"content-available":1}}"#),
        Case(
            name: "65-byte collapse id", status: 400, reason: "BadCollapseId",
            headers: [("apns-collapse-id", String(repeating: "c", count: 65))]),
        Case(
            name: "expiration not an integer", status: 400, reason: "BadExpirationDate",
            headers: [("apns-expiration", "tomorrow")]),
        Case(
            name: "repeated header", status: 400, reason: "DuplicateHeaders",
            headers: [("apns-priority", "10"), ("apns-priority", "10")]),
        Case(name: "no authorization", status: 403, reason: "MissingProviderToken", token: { _ in "" }),
        Case(
            name: "signed by another key", status: 403, reason: "InvalidProviderToken",
            token: { setup in
                try ProviderTokenMaker.sign(keyPath: OpenSSLKey(in: setup.directory, name: "other").pkcs8Path)
            }),
        Case(
            name: "other key id", status: 403, reason: "InvalidProviderToken",
            token: { setup in
                try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path, keyID: "ZZZZZ99999")
            }),
        Case(
            name: "other team", status: 403, reason: "InvalidProviderToken",
            token: { setup in
                try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path, teamID: "ZZZZZ99999")
            }),
        Case(
            name: "issued 61 minutes ago", status: 403, reason: "ExpiredProviderToken",
            token: { setup in
                try ProviderTokenMaker.sign(
                    keyPath: setup.key.pkcs8Path, issuedAt: Int(Date().timeIntervalSince1970) - 3660)
            }),
        Case(name: "empty body", status: 400, reason: "PayloadEmpty", body: nil),
        Case(name: "4097 bytes", status: 413, reason: "PayloadTooLarge", body: paddedPayload(4097)),
        Case(
            name: "5121 bytes of voip", status: 413, reason: "PayloadTooLarge",
            headers: [("apns-push-type", "voip"), ("apns-topic", ProviderSetup.topic + ".voip")],
            body: paddedPayload(5121)),
        Case(
            name: "40 KB, answered before the end", status: 413, reason: "PayloadTooLarge", body: paddedPayload(40_000)),
        Case(name: "aps not an object", status: 400, reason: "BadPayload", body: #"{"aps":"Hello"}"#),
        Case(name: "not JSON", status: 400, reason: "BadPayload", body: "Hello"),
    ]

    /// A valid payload of exactly `size` bytes.
    static func paddedPayload(_ size: Int) -> String {
        let prefix = #"{"aps":{"alert":"Hi"},"pad":""#, suffix = #""}"#
        return prefix + String(repeating: "x", count: size - prefix.count - suffix.count) + suffix
    }

    @Test("each reason: Apple's status, {\"reason\"} body, apns-id, and a record")
    func reasons() throws {
        let setup = try ProviderSetup()
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let valid = try setup.token()
        for (index, testCase) in Self.cases.enumerated() {
            var headers: [(String, String)] = []
            let token = try testCase.token?(setup) ?? valid
            if !token.isEmpty { headers.append(("authorization", "bearer \(token)")) }
            let overridden = Set(testCase.headers.map(\.0))
            if !overridden.contains("apns-topic") { headers.append(("apns-topic", ProviderSetup.topic)) }
            headers += testCase.headers.filter { !($0.0 == "apns-topic" && $0.1.isEmpty) }
            let response = try Curl.request(
                emulator.baseURL + testCase.path, method: testCase.method, headers: headers, body: testCase.body,
                cacert: emulator.caPath)
            #expect(
                response.status == testCase.status,
                "\(testCase): got \(response.status) \(response.body) \(response.stderr)")
            #expect(response.reason == testCase.reason, "\(testCase): got \(response.body)")
            #expect(response.json?.count == 1, "\(testCase): only a reason, got \(response.body)")
            #expect(response.headers["apns-id"] != nil, "\(testCase)")
            let records = emulator.waitForRecords(index + 1)
            #expect(records.count == index + 1, "\(testCase)")
            #expect(records.last?["reason"] as? String == testCase.reason, "\(testCase)")
            #expect(records.last?["status"] as? Int == testCase.status, "\(testCase)")
        }
        // After all that, the valid token still works.
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: valid).status == 200)
    }

    @Test("a new provider token on another connection within 20 minutes is accepted and noted, as APNs does")
    func tokenUpdatesPerConnection() throws {
        let setup = try ProviderSetup()
        let now = Int(Date().timeIntervalSince1970)
        let first = try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path, issuedAt: now - 10)
        let second = try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path, issuedAt: now - 5)
        let emulator = try RunningEmulator(environment: setup.environment)
        // Each curl run is a connection of its own.
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: first).status == 200)
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: second).status == 200)
        let records = emulator.waitForRecords(2)
        #expect(records.first?["detail"] == nil)
        #expect((records.last?["detail"] as? String)?.contains("on another connection") == true, "\(records)")
    }

    @Test(
        "with --global-token-updates a second provider token within 20 minutes is 429 TooManyProviderTokenUpdates, unless --lenient-token-updates"
    )
    func tokenUpdates() throws {
        let setup = try ProviderSetup()
        let now = Int(Date().timeIntervalSince1970)
        let first = try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path, issuedAt: now - 10)
        let second = try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path, issuedAt: now - 5)
        let strict = try RunningEmulator(["--global-token-updates"], environment: setup.environment)
        #expect(try Curl.push(to: strict, deviceToken: deviceA, token: first).status == 200)
        let refused = try Curl.push(to: strict, deviceToken: deviceA, token: second)
        #expect(refused.status == 429)
        #expect(refused.reason == "TooManyProviderTokenUpdates")
        #expect(
            try Curl.push(to: strict, deviceToken: deviceA, token: first).status == 200, "the first token stays good")

        let lenient = try RunningEmulator(["--lenient-token-updates"], environment: setup.environment)
        #expect(try Curl.push(to: lenient, deviceToken: deviceA, token: first).status == 200)
        #expect(try Curl.push(to: lenient, deviceToken: deviceA, token: second).status == 200)
    }
}
