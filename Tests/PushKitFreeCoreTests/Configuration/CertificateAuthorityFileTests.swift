import Foundation
import Testing
@testable import PushKitFreeCore

@Suite("CertificateAuthorityFile: the extra CA bundle")
struct CertificateAuthorityFileTests {
    @Test("a CA file counts only with a PEM certificate block of base64 DER")
    func certificateBlocks() {
        let der = "MAMCAQE=" // SEQUENCE { INTEGER 1 }
        #expect(
            CertificateAuthorityFile.containsCertificate(
                Data("-----BEGIN CERTIFICATE-----\n\(der)\n-----END CERTIFICATE-----\n".utf8)))
        #expect(!CertificateAuthorityFile.containsCertificate(Data("not a certificate\n".utf8)))
        #expect(
            !CertificateAuthorityFile.containsCertificate(
                Data("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".utf8)))
        #expect(!CertificateAuthorityFile.containsCertificate(Data("-----BEGIN CERTIFICATE-----\n\(der)\n".utf8)))
    }
}
