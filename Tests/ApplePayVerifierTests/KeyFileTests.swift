import ApplePayVerifier
import Crypto
import Foundation
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// Merchant key files in the forms people have them, and the errors for the forms we cannot use.
@Suite struct KeyFileTests {
    /// A real PKCS#12 file (throwaway P-256 key, password "fixture"), made with
    /// `openssl pkcs12 -export`.
    static let pkcs12Base64 = """
        MIIEDAIBAzCCA8IGCSqGSIb3DQEHAaCCA7MEggOvMIIDqzCCAmIGCSqGSIb3DQEHBqCCAlMwggJP
        AgEAMIICSAYJKoZIhvcNAQcBMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiXQscMzUag
        lQICCAAwDAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEAKAMLA/FycpqnSHjWdgH/eAggHgWsQX
        U7AMwJ7EA/By4mK47Ka6g/3TjzIR9iI+K0/ydSiyJVCetozDRXKa1wkOJi/q0Bz7XFBGhR3AZi0j
        PHgb1Zp8CETiSQr6JwQjgpakWQWU4cXqoBjVTlOKyS0kxjU93w5b617FeG9fH4+GBC5MR83fvfcI
        A4wYz18GF30K5NIB6Jr24s1ASs5bPTUDNFW5yEQi0Fqx82JGatCqaTkejNVd5Qt7PmUO5jIhr9Px
        xbusq8VQDW6TibhZT6VA+2jN4ZBKHBXWCx9XvmRl4Z8Tu+QJeZ3RH25L2ZJ0gi40OUpfbg4lliOq
        QtpiSR8VRophpY+6d2VYZM1xbQNsVhzRB582/z5N2h0fKCXEwzxsk27uLd7vpoBWVY3Bf+V8QOv9
        KPDdPl+ANSOR6qLHX3g0L35T592z2MPBNa/lFS9pN0WnnkFPhjOMmqWgsW0ANDBX//gS/AM1p8n1
        1HNGE4YNdDvD3fWjoq8qgcTU7voH5x8dG3nb9QagTtVvafHNPkiebA++JMAaTBPgDnqmiLDvEq3W
        GbFMpFxq+LDE98Imkl+37YrI6tmxX5x5iKw3TCFkFSl8c6W9/eqZEoueA9n1cw7Ab6hVZA6Q+0bD
        mohWk3IvRKQKlkw1PmJpbl0yofT2MIIBQQYJKoZIhvcNAQcBoIIBMgSCAS4wggEqMIIBJgYLKoZI
        hvcNAQwKAQKgge8wgewwVwYJKoZIhvcNAQUNMEowKQYJKoZIhvcNAQUMMBwECIYQPbB70WjrAgII
        ADAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQdBS2wKRgmFaQboyWoMXPZASBkL1erCFBdgJG
        APiWfeAEHa7uqS8iQ3oCVCVxdEpb+1SlwLQBoROG9uXn6vyOJNwgRTquFG5Ley/Y3uBJ7V6os7jh
        kydL3Mh3Ls7skFeQmJS6XF2RSGHemWUn+2T242y2OA7/imqKobvTpMLsuCVTRJBZ5NWznhfWSVPC
        8WNCF3FHnvKQb060dVsLsAYb9edLYjElMCMGCSqGSIb3DQEJFTEWBBQjl2pFQSCpH5kmY8rUEPq3
        TuI52jBBMDEwDQYJYIZIAWUDBAIBBQAEIN18rpOOgImqTwvfkpFfa321or6to1gEzQVvdiAsSbnQ
        BAivNgyNGbmLWgICCAA=
        """

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
        let der = [UInt8](try #require(Data(base64Encoded: Self.pkcs12Base64, options: .ignoreUnknownCharacters)))
        for contents in [der, Array(Self.pkcs12Base64.utf8)] {
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
