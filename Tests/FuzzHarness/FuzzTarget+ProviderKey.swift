#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore
import PushKitFreeEmulator

extension FuzzTarget {
    /// The provider key file as the tools load it (UTF-8 text, then PEM). A key that loads signs a
    /// provider token that decodes, names its key and team, and verifies with the key's public half.
    static func checkProviderKey(_ input: [UInt8]) throws(FuzzViolation) {
        let origin = "key file /fuzz/AuthKey.p8 (from --key-path)"
        guard let text = String(data: Data(input), encoding: .utf8) else { return }
        let key: ProviderKey
        do throws(ProviderKeyError) {
            key = try ProviderKey(pem: text, origin: origin)
        } catch {
            try FuzzViolation.requireMessage(error.message, from: "the key reader")
            try FuzzViolation.require(
                error.message.contains(origin), "a refused key file is not named: \(error.message)")
            try FuzzViolation.require(
                error.exitStatus == .configuration, "a bad key file exits \(error.exitStatus.rawValue), not 78")
            return
        }
        try FuzzViolation.require(key.fingerprint.utf8.count == 16, "the key's fingerprint is \(key.fingerprint)")
        let token: ProviderToken
        do {
            token = try ProviderToken.sign(
                key: key, keyID: FuzzFixtures.keyID, teamID: FuzzFixtures.teamID, issuedAt: 1_714_564_800)
        } catch {
            throw FuzzViolation("a key that loaded cannot sign: \(error)")
        }
        let check = ProviderTokenCheck.inspect(
            token.compact, publicKey: key.privateKey.publicKey, keyID: FuzzFixtures.keyID, teamID: FuzzFixtures.teamID)
        try FuzzViolation.require(check.isAuthentic, "a token the key signed is refused: \(check.problem ?? "")")
        try FuzzViolation.require(
            check.issuedAt == 1_714_564_800,
            "a token the key signed reads back iat \(String(describing: check.issuedAt))")
    }
}
