import Foundation
import Testing

/// The provider token Apple's own command-line recipe makes ("Sending push notifications using
/// command-line tools": the header and claims in base64url, signed with `openssl dgst -binary
/// -sha256 -sign`, which writes a DER-encoded signature) is accepted by the emulator, as APNs
/// accepts it; `--strict-signature` refuses it.
@Suite("Apple's command-line recipe against the emulator")
struct AppleRecipeTests {
    /// Apple's recipe, step by step, then curl with the token in a header file.
    static func recipe(emulator: RunningEmulator, setup: ProviderSetup) -> String {
        """
        set -euo pipefail
        base64url() { openssl base64 -e -A | tr -- '+/' '-_' | tr -d =; }
        JWT_ISSUE_TIME=$(date +%s)
        JWT_HEADER=$(printf '{ "alg": "ES256", "kid": "%s" }' "\(ProviderSetup.keyID)" | base64url)
        JWT_CLAIMS=$(printf '{ "iss": "%s", "iat": %d }' "\(ProviderSetup.teamID)" "$JWT_ISSUE_TIME" | base64url)
        JWT_HEADER_CLAIMS="${JWT_HEADER}.${JWT_CLAIMS}"
        JWT_SIGNED_HEADER_CLAIMS=$(printf "$JWT_HEADER_CLAIMS" | openssl dgst -binary -sha256 -sign "\(setup.key.pkcs8Path)" | base64url)
        AUTHENTICATION_TOKEN="${JWT_HEADER}.${JWT_CLAIMS}.${JWT_SIGNED_HEADER_CLAIMS}"
        printf 'authorization: bearer %s\\n' "$AUTHENTICATION_TOKEN" > "\(setup.directory.file("auth-header"))"
        curl -sS --http2 --cacert "\(emulator.caPath)" -o /dev/null -w '%{http_code}' \\
          -H @"\(setup.directory.file("auth-header"))" -H "apns-topic: \(ProviderSetup.topic)" \\
          -H "apns-push-type: alert" -d '{"aps":{"alert":"Hello from openssl"}}' \\
          "\(emulator.baseURL)/3/device/\(String(repeating: "ab", count: 32))"
        """
    }

    @Test("accepted by default, with a note in the record; refused with --strict-signature")
    func appleRecipe() throws {
        let setup = try ProviderSetup()
        let lenient = try RunningEmulator(["--quiet"], environment: setup.environment)
        let accepted = try BuiltTool.runSystem("bash", ["-c", Self.recipe(emulator: lenient, setup: setup)])
        #expect(accepted.stdout == "200", "\(accepted.stdout) \(accepted.stderr)")
        let record = try #require(lenient.waitForRecords(1).first)
        #expect((record["detail"] as? String)?.contains("DER-encoded") == true, "\(record)")

        let strict = try RunningEmulator(["--quiet", "--strict-signature"], environment: setup.environment)
        let refused = try BuiltTool.runSystem("bash", ["-c", Self.recipe(emulator: strict, setup: setup)])
        #expect(refused.stdout == "403", "\(refused.stdout) \(refused.stderr)")
        let refusal = try #require(strict.waitForRecords(1).first)
        #expect(refusal["reason"] as? String == "InvalidProviderToken")
    }
}
