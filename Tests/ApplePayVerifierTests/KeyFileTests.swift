import ApplePayVerifier
import Crypto
import Foundation
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// Merchant key files in the forms people have them, and the errors for the forms we cannot use.
@Suite struct KeyFileTests {
    static let encryptedPKCS8 = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgqhd8QR83azQICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEKxlXcVe18QiALLqKESx7DkEgZBS
        EmtNZnZ6PQ0GCnogK08CX1kORXJAjAgz0heMXraZNKIYGl13SWKqRe9ssJtSaOTa
        0/VUYbmCpH7ithvMkVpeiziUT80s5OStaBhYWnv6cNygyY7xqQn8E3n97FQkaHh/
        kk28BX8vQZIjvf3/IcQw5hXshrXlgzdNYO9wkx3etgJfSF98cwVm0ClB2avqZn4=
        -----END ENCRYPTED PRIVATE KEY-----
        """

    static let encryptedSEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        Proc-Type: 4,ENCRYPTED
        DEK-Info: AES-256-CBC,1AB6BAC0AECC44E317DA82079F972C71

        e2pRDclIGLQRuJhClvzOw+M4DEaduFeOSTiFXBBeg/akDoBCkrwf2Qy03RCOoXtm
        qZ1AZSnuSvFwnxlZXW6ZpX34SrlWWBFSFwkHtNAwcvjxibPmaJ0wbPQYxnGGrVRJ
        pD6haoZwgkeUrSdn4A5/8ZXP+gV1/QeCOB5Zb3SXO2w=
        -----END EC PRIVATE KEY-----
        """

    static func key(_ merchant: ApplePayFixtureMerchant, keyText: String) throws -> MerchantKey {
        try MerchantKey(certificateFile: Array(merchant.certificatePEM.utf8), privateKeyFile: Array(keyText.utf8))
    }

    @Test func ecKeyFormats() throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        for text in [
            merchant.traditionalKeyPEM, merchant.pkcs8KeyPEM, merchant.ecParametersAndKeyPEM, merchant.opensslBagAttributesKeyPEM,
            merchant.traditionalKeyPEM.replacingOccurrences(of: "\n", with: "\r\n"),
        ] {
            let key = try Self.key(merchant, keyText: text)
            #expect(key.publicKeyHash == merchant.publicKeyHash)
        }
        // DER files (SEC1 and PKCS#8) and a DER certificate.
        let sec1 = try #require(pemBody(merchant.traditionalKeyPEM))
        let pkcs8 = try #require(pemBody(merchant.pkcs8KeyPEM))
        for der in [sec1, pkcs8] {
            let key = try MerchantKey(certificateFile: merchant.certificateDER, privateKeyFile: der)
            #expect(key.publicKeyHash == merchant.publicKeyHash)
        }
    }

    @Test func rsaKeyFormats() throws {
        let merchant = try ApplePayFixtureMerchant.rsa()
        for text in [merchant.traditionalKeyPEM, merchant.pkcs8KeyPEM, merchant.opensslBagAttributesKeyPEM] {
            let key = try Self.key(merchant, keyText: text)
            #expect(key.publicKeyHash == merchant.publicKeyHash)
            #expect(key.description.contains("RSA-2048"))
        }
        let pkcs1 = try #require(pemBody(merchant.traditionalKeyPEM))
        #expect(try MerchantKey(certificateFile: merchant.certificateDER, privateKeyFile: pkcs1).publicKeyHash == merchant.publicKeyHash)
    }

    @Test func pkcs12GetsConversionAdvice() throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        let der = [UInt8](try #require(Data(base64Encoded: MerchantKeyFiles.pkcs12Base64, options: .ignoreUnknownCharacters)))
        for contents in [der, Array(MerchantKeyFiles.pkcs12Base64.utf8)] {
            do {
                _ = try MerchantKey(certificateFile: merchant.certificateDER, privateKeyFile: contents)
                Issue.record("a PKCS#12 file was accepted as a key")
            } catch {
                #expect(error.code == .pkcs12)
                #expect(error.reason.contains("openssl pkcs12 -in f.p12 -nocerts -nodes -out key.pem"))
            }
        }
    }

    @Test(arguments: [encryptedPKCS8, encryptedSEC1])
    func encryptedKeysAreExplained(text: String) throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        #expect(throws: MerchantKeyError(.encryptedKey, "")) { try Self.key(merchant, keyText: text) }
    }

    @Test func keyOfAnotherCertificateIsRejected() throws {
        let a = try ApplePayFixtureMerchant.ec()
        let b = try ApplePayFixtureMerchant.ec()
        #expect(throws: MerchantKeyError(.keyCertificateMismatch, "")) { try Self.key(a, keyText: b.traditionalKeyPEM) }
        let rsa = try ApplePayFixtureMerchant.rsa()
        #expect(throws: MerchantKeyError(.keyCertificateMismatch, "")) { try Self.key(a, keyText: rsa.traditionalKeyPEM) }
        // The message names the key type in words, never a library type name.
        do {
            _ = try Self.key(a, keyText: rsa.traditionalKeyPEM)
        } catch {
            #expect("\(error)".contains("the certificate's key is EC P-256"), "\(error)")
            #expect(!"\(error)".contains("PublicKey"), "\(error)")
        }
    }

    @Test func unreadableFiles() throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        for text in [
            "", "hello", "-----BEGIN CERTIFICATE-----\n" + merchant.certificatePEM.split(separator: "\n").dropFirst().joined(separator: "\n"),
            "-----BEGIN EC PRIVATE KEY-----\nAAAA\n", "-----BEGIN EC PRIVATE KEY-----\n!!!!\n-----END EC PRIVATE KEY-----\n",
        ] {
            #expect(throws: MerchantKeyError.self) { try Self.key(merchant, keyText: text) }
        }
        #expect(throws: MerchantKeyError(.unreadableCertificate, "")) {
            try MerchantKey(certificateFile: Array("not a certificate".utf8), privateKeyFile: Array(merchant.traditionalKeyPEM.utf8))
        }
        // Two keys in one file is ambiguous.
        #expect(throws: MerchantKeyError.self) { try Self.key(merchant, keyText: merchant.traditionalKeyPEM + merchant.pkcs8KeyPEM) }
    }

    @Test func merchantIdentifierSources() throws {
        // OID present: taken from the certificate.
        let withOID = try ApplePayFixtureMerchant.ec(merchantIdentifier: "merchant.com.example.one")
        #expect(try withOID.merchantKey().merchantIdentifierSource == "OID 1.2.840.113635.100.6.32")
        // UID only (method 1).
        let uidOnly = try ApplePayFixtureMerchant.ec(merchantIdentifier: "merchant.com.example.two", includeMerchantIdentifierOID: false)
        #expect(try uidOnly.merchantKey().merchantIdentifierSource == "subject UID \"merchant.com.example.two\"")
        // Neither: the caller must say.
        let neither = try ApplePayFixtureMerchant.ec(
            merchantIdentifier: "merchant.com.example.three", includeMerchantIdentifierOID: false, includeUID: false)
        #expect(throws: MerchantKeyError(.merchantIdentifierMissing, "")) { try neither.merchantKey() }
        #expect(
            try neither.merchantKey(merchantIdentifier: "merchant.com.example.three").merchantIdentifierSource
                == "the merchant id given by the caller")
    }

    @Test func duplicateKeysInARing() throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        #expect(throws: MerchantKeyError(.duplicateKey, "")) { try MerchantKeyRing([merchant.merchantKey(), merchant.merchantKey()]) }
    }

    @Test func keyDescriptionsShowNoKeyMaterial() throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        let key = try merchant.merchantKey()
        guard case .ec(let privateKey) = merchant.key else { return }
        let secretHex = privateKey.rawRepresentation.map { String(format: "%02x", $0) }.joined()
        let secretBase64 = privateKey.rawRepresentation.base64EncodedString()
        for text in [key.description, "\(key)", String(reflecting: key), try MerchantKeyRing([key]).description] {
            #expect(!text.lowercased().contains(secretHex))
            #expect(!text.contains(secretBase64))
        }
    }

    private func pemBody(_ pem: String) -> [UInt8]? {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: body).map { [UInt8]($0) }
    }
}
