#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The extra CA bundle to trust (`--cacert`, `APNS_CA_FILE`, `ca_file`), checked before anything is
/// sent: libcurl would otherwise fail the TLS handshake of every device, one by one, with an error
/// that does not say the file is at fault.
package enum CertificateAuthorityFile {
    /// What is wrong with the CA file `setting` names, or `nil` when it holds a PEM certificate.
    ///
    /// A missing or unreadable file exits 66; a directory, or a file without one
    /// `-----BEGIN CERTIFICATE-----` block whose body is base64 DER, exits 78.
    package static func problem(_ setting: Setting<String>) -> ConfigurationError? {
        let path = setting.value
        if PosixFile.entry(at: path) == .directory {
            return ConfigurationError("the CA file \(path) (from \(setting.source)) is a directory, not a PEM file")
        }
        let data: Data?
        do {
            data = try PosixFile.readRegularFile(path, limit: 16 << 20)
        } catch {
            return ConfigurationError(
                "cannot read the CA file \(path) (from \(setting.source)): \(error.reason)",
                exitStatus: .noInput)
        }
        guard let data else {
            return ConfigurationError(
                "the CA file \(path) (from \(setting.source)) does not exist", exitStatus: .noInput)
        }
        guard containsCertificate(data) else {
            return ConfigurationError(
                "the CA file \(path) (from \(setting.source)) holds no PEM certificate (-----BEGIN CERTIFICATE----- ...)"
            )
        }
        return nil
    }

    /// Throws `problem(_:)`'s error, if any.
    package static func check(_ setting: Setting<String>?) throws(ConfigurationError) {
        if let setting, let problem = problem(setting) { throw problem }
    }

    /// Whether `data` has at least one PEM certificate block whose body decodes to a DER sequence.
    static func containsCertificate(_ data: Data) -> Bool {
        let text = String(decoding: data, as: UTF8.self)
        var rest = text[...]
        while let begin = rest.firstRange(of: "-----BEGIN CERTIFICATE-----") {
            guard let end = rest[begin.upperBound...].firstRange(of: "-----END CERTIFICATE-----") else { return false }
            let body = rest[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            if let der = Data(base64Encoded: String(body)), der.first == 0x30 { return true }
            rest = rest[end.upperBound...]
        }
        return false
    }
}
