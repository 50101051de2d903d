import ApplePayVerifier
import Foundation
import SwiftASN1
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// EC_v1 and RSA_v1 tokens from the fixture PKI: the good paths, then one test per failure.
@Suite struct FixtureTokenTests {
    // MARK: Good tokens

    @Test func ecV1TokenIsAccepted() async throws {
        var builder = Fixture.builder(Fixture.ecMerchant)
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash("order-42")
        let token = try builder.build()
        let result = try await Fixture.verify(
            token, expectations: ApplePayExpectations(currencyCode: "840", transactionAmount: 1999, originalApplicationData: Array("order-42".utf8)))
        result.expectAccepted()
        let payment = try #require(result.payment)
        #expect(payment.rawJSON == token.plaintext)
        #expect(payment.transactionAmount == 1999)
        #expect(payment.cardholderName == "Jane Fixture")
        #expect(result.summary?.version == .ecV1)
        #expect(result.report.warnings.map(\.code) == ["customTrustAnchor"])
        #expect(result.report.check(.applePayDecryption)?.message.contains("AES-256-GCM") == true)
        // Details written with a passing message when the report is read.
        #expect(result.report.check(.applePayTokenStructure)?.details == ["version": "EC_v1", "transactionId": token.transactionId])
        #expect(result.report.check(.applePayTokenStructure)?.message.hasPrefix("EC_v1 token with every header field") == true)
        let signing = try #require(result.report.check(.applePaySigningTime))
        #expect(signing.details.keys.sorted() == ["ageSeconds", "signingTime"])
        let (signed, age) = (signing.details["signingTime"] ?? "", signing.details["ageSeconds"] ?? "")
        #expect(signing.message == "Signed at \(signed), \(age) s before the verification time (window 300 s)")
        let replay = try #require(result.report.check(.replayTransactionId))
        #expect(replay.details.keys.sorted() == ["transactionId"])
        #expect(replay.message.hasPrefix("transactionId \(token.transactionId) seen for the first time"))
    }

    /// The JSON answer carries the decrypted payment byte for byte, as received, and only for an
    /// accepted token; the text form is the same bytes.
    @Test func jsonAnswerCarriesThePaymentAsReceived() async throws {
        let token = try Fixture.builder(Fixture.ecMerchant).build()
        let accepted = try await Fixture.verify(token)
        accepted.expectAccepted()
        let bytes = accepted.jsonBytes
        #expect(Array(accepted.json.utf8) == bytes)
        let payment = try #require(accepted.payment)
        let member = Array(#","payment":"#.utf8) + token.plaintext + Array(#","card":"#.utf8) + payment.card.jsonBytes + [UInt8(ascii: "}")]
        #expect(bytes.count > member.count && Array(bytes.suffix(member.count)) == member)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect((object["token"] as? [String: Any])?["transactionId"] as? String == accepted.summary?.transactionId)
        #expect(object["verdict"] as? String == "accepted")

        var builder = Fixture.builder(Fixture.ecMerchant)
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash("order-42")
        let rejected = try await Fixture.verify(
            try builder.build(), expectations: ApplePayExpectations(originalApplicationData: Array("order-43".utf8)))
        #expect(rejected.report.verdict == .rejected)
        let rejectedObject = try #require(try JSONSerialization.jsonObject(with: Data(rejected.jsonBytes)) as? [String: Any])
        #expect(rejectedObject["payment"] == nil)
        #expect(rejectedObject["token"] != nil)
        #expect(Array(rejected.json.utf8) == rejected.jsonBytes)
    }

    @Test func rsaV1TokenIsAccepted() async throws {
        let token = try Fixture.builder(Fixture.rsaMerchant).build()
        let result = try await Fixture.verify(token)
        result.expectAccepted()
        #expect(result.payment?.rawJSON == token.plaintext)
        #expect(result.summary?.version == .rsaV1)
        #expect(result.report.check(.applePaySignatureSigner)?.message.contains("RSA PKCS#1 v1.5/SHA-256") == true)
        #expect(result.report.check(.applePayDecryption)?.message.contains("AES-128-GCM") == true)
    }

    /// Encodings real senders produce: DER instead of BER, intermediate first, sha256 without NULL
    /// parameters, GeneralizedTime, the CMSAlgorithmProtection attribute, a whole PKPaymentToken.
    @Test(arguments: ["der", "intermediateFirst", "noNull", "generalizedTime", "algorithmProtection", "pkPaymentToken"])
    func encodingVariantsAreAccepted(variant: String) async throws {
        for merchant in [Fixture.ecMerchant, Fixture.rsaMerchant] {
            var builder = Fixture.builder(merchant)
            builder.cms = { cms in
                switch variant {
                case "der": cms.indefiniteLengths = false
                case "intermediateFirst": cms.leafFirst = false
                case "noNull": cms.digestAlgorithmNullParameters = false
                case "generalizedTime": cms.generalizedSigningTime = true
                case "algorithmProtection": cms.includeAlgorithmProtection = true
                default: break
                }
            }
            let token = try builder.build()
            let verifier = try Fixture.verifier()
            let result = await verifier.verify(
                token.json(asPKPaymentToken: variant == "pkPaymentToken"), context: VerificationContext(time: Fixture.verificationTime))
            result.expectAccepted()
        }
    }

    // MARK: Each signed field tampered

    @Test(arguments: [
        ("EC_v1", "data"), ("EC_v1", "ephemeralPublicKey"), ("EC_v1", "transactionId"), ("EC_v1", "applicationData"),
        ("RSA_v1", "data"), ("RSA_v1", "wrappedKey"), ("RSA_v1", "transactionId"), ("RSA_v1", "applicationData"),
    ])
    func tamperedSignedFieldBreaksTheDigest(version: String, field: String) async throws {
        var builder = Fixture.builder(version == "EC_v1" ? Fixture.ecMerchant : Fixture.rsaMerchant)
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash("order-42")
        var token = try builder.build()
        if field == "transactionId" || field == "applicationData" {
            token.alterHexField(field)
        } else {
            token.flipBit(inBase64Field: field)
        }
        let result = try await Fixture.verify(token)
        result.expectRejected(.applePaySignatureMessageDigest, .digestMismatch)
        // The signature over the attributes is still Apple's: only the digest exposes the change.
        #expect(result.status(.applePaySignatureSigner) == .passed)
        #expect(result.reason(.applePayDecryption) == .prerequisiteFailed)
        #expect(result.reason(.replayTransactionId) == .prerequisiteFailed)
    }

    // MARK: Certificates

    @Test func leafWithoutMarkerOID() async throws {
        var options = ApplePayFixturePKI.Options()
        options.leafMarker = false
        let pki = try ApplePayFixturePKI(options: options)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki))
        result.expectRejected(.applePaySignatureMarkerOIDs, .missingLeafMarkerOID)
        #expect(result.report.check(.applePaySignatureMarkerOIDs)?.message.contains("1.2.840.113635.100.6.29") == true)
        #expect(result.reason(.applePaySignatureChain) == .prerequisiteFailed)
    }

    @Test func intermediateWithoutMarkerOID() async throws {
        var options = ApplePayFixturePKI.Options()
        options.intermediateMarker = false
        let pki = try ApplePayFixturePKI(options: options)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki))
        result.expectRejected(.applePaySignatureMarkerOIDs, .missingIntermediateMarkerOID)
        #expect(result.report.check(.applePaySignatureMarkerOIDs)?.message.contains("1.2.840.113635.100.6.2.14") == true)
    }

    /// With the marker check made advisory, the chain still refuses a path without markers.
    @Test func markerOIDsAreAlsoEnforcedInsideChainBuilding() async throws {
        var options = ApplePayFixturePKI.Options()
        options.intermediateMarker = false
        let pki = try ApplePayFixturePKI(options: options)
        var policy = ApplePayPolicy.production
        policy.requirements = policy.requirements.with(.applePaySignatureMarkerOIDs, .advisory)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki, policy: policy))
        result.expectRejected(.applePaySignatureChain, .untrustedChain)
        #expect(result.report.check(.applePaySignatureChain)?.message.contains("1.2.840.113635.100.6.2.14") == true)
    }

    @Test func wrongRoot() async throws {
        let token = try Fixture.builder().build()
        let result = try await Fixture.verify(token, with: try Fixture.verifier(anchor: try ApplePayFixturePKI.standard.otherTrustAnchor()))
        result.expectRejected(.applePaySignatureChain, .untrustedChain)
        #expect(result.status(.applePaySignatureSigner) == .passed)
        // The same token, the same process, the right root: accepted (the cache is per anchor).
        try await Fixture.verify(token).expectAccepted()
    }

    @Test func intermediateSignedByAnotherRootWithTheSameName() async throws {
        var options = ApplePayFixturePKI.Options()
        options.intermediateSignedByOtherRoot = true
        let pki = try ApplePayFixturePKI(options: options)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki))
        result.expectRejected(.applePaySignatureChain, .untrustedChain)
    }

    @Test func expiredLeafIsNotASigningTimeProblem() async throws {
        var options = ApplePayFixturePKI.Options()
        options.leafNotAfter = Fixture.signingTime.addingTimeInterval(10)
        let pki = try ApplePayFixturePKI(options: options)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki))
        result.expectRejected(.applePaySignatureCertificateValidity, .certificateExpired)
        let message = try #require(result.report.check(.applePaySignatureCertificateValidity)?.message)
        #expect(message.contains("leaf certificate \"ecc-fixture-broker-sign\""))
        #expect(message.contains("expired at"))
        // The token itself is fresh.
        #expect(result.status(.applePaySigningTime) == .passed)
        #expect(result.reason(.applePaySignatureChain) == .prerequisiteFailed)
    }

    @Test func leafNotYetValid() async throws {
        var options = ApplePayFixturePKI.Options()
        options.leafNotBefore = Fixture.verificationTime.addingTimeInterval(3600)
        let pki = try ApplePayFixturePKI(options: options)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki))
        result.expectRejected(.applePaySignatureCertificateValidity, .certificateNotYetValid)
    }

    @Test func expiredIntermediate() async throws {
        var options = ApplePayFixturePKI.Options()
        options.intermediateNotAfter = Fixture.signingTime
        let pki = try ApplePayFixturePKI(options: options)
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: try Fixture.verifier(pki: pki))
        result.expectRejected(.applePaySignatureCertificateValidity, .certificateExpired)
        #expect(result.report.check(.applePaySignatureCertificateValidity)?.message.contains("intermediate certificate") == true)
    }

    /// A validated chain is remembered, but only for times inside every certificate's validity:
    /// with the validity check disabled, the cached chain still does not vouch for an expired leaf.
    @Test func chainCacheIsUsedAndRespectsTime() async throws {
        var options = ApplePayFixturePKI.Options()
        options.leafNotAfter = Fixture.signingTime.addingTimeInterval(120)
        let pki = try ApplePayFixturePKI(options: options)
        var policy = ApplePayPolicy.production
        policy.requirements = policy.requirements.with(.applePaySignatureCertificateValidity, .disabled)
        let verifier = try Fixture.verifier(pki: pki, policy: policy)
        #expect(try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: verifier).verdict == .accepted)
        #expect(try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: verifier).verdict == .accepted)
        #expect(verifier.chainCache.counts.chains == 1)
        #expect(verifier.chainCache.counts.intermediates == 1)
        // Signed before expiry, verified after it (window widened so only expiry matters).
        let late = Fixture.signingTime.addingTimeInterval(200)
        var lenient = policy
        lenient.maximumSigningAge = .seconds(3600)
        let sameCache = try ApplePayTokenVerifier(
            keyRing: verifier.keyRing, replayStore: InMemoryReplayStore(), policy: lenient,
            trustAnchor: verifier.trustAnchor, chainCache: verifier.chainCache
        )
        let result = try await Fixture.verify(try Fixture.builder(pki: pki).build(), with: sameCache, at: late)
        result.expectRejected(.applePaySignatureChain, .untrustedChain)
        #expect(result.report.check(.applePaySignatureChain)?.message.contains("expired") == true)
    }

    // MARK: Signing time

    @Test func signingTimeWindowOnBothSides() async throws {
        let token = try Fixture.builder().build()
        // window − 1 s accepts, window + 1 s rejects.
        try await Fixture.verify(token, at: Fixture.signingTime.addingTimeInterval(299)).expectAccepted()
        let old = try await Fixture.verify(token, at: Fixture.signingTime.addingTimeInterval(301))
        old.expectRejected(.applePaySigningTime, .signingTimeTooOld)
        #expect(old.report.check(.applePaySigningTime)?.details["ageSeconds"] == "301")
        #expect(old.status(.applePaySignatureCertificateValidity) == .passed)
        // Up to the skew in the future accepts; beyond rejects.
        try await Fixture.verify(token, at: Fixture.signingTime.addingTimeInterval(-59)).expectAccepted()
        let future = try await Fixture.verify(token, at: Fixture.signingTime.addingTimeInterval(-61))
        future.expectRejected(.applePaySigningTime, .signingTimeInFuture)
        // A larger context clock skew widens the future side.
        let verifier = try Fixture.verifier()
        let skewed = await verifier.verify(
            token.json(), context: VerificationContext(time: Fixture.signingTime.addingTimeInterval(-100), clockSkew: .seconds(120)))
        skewed.expectAccepted()
    }

    @Test func missingAndDuplicateSigningTime() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.includeSigningTime = false }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySigningTime, .missingAttribute)
        builder.cms = { $0.duplicateSigningTime = true }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySigningTime, .duplicateAttribute)
    }

    /// A policy may make the window advisory (reconciling old tokens): reported, not rejected.
    @Test func advisorySigningTime() async throws {
        var policy = ApplePayPolicy.production
        policy.requirements = policy.requirements.with(.applePaySigningTime, .advisory)
        let result = try await Fixture.verify(
            try Fixture.builder().build(), with: try Fixture.verifier(policy: policy), at: Fixture.signingTime.addingTimeInterval(86_400))
        #expect(result.verdict == .accepted)
        #expect(result.status(.applePaySigningTime) == .failed)
        #expect(result.report.check(.applePaySigningTime)?.requirement == .advisory)
        #expect(result.payment != nil)
    }

    // MARK: CMS structure and signer

    @Test func corruptedSignatureValue() async throws {
        for merchant in [Fixture.ecMerchant, Fixture.rsaMerchant] {
            var builder = Fixture.builder(merchant)
            builder.cms = { $0.corruptSignature = true }
            let result = try await Fixture.verify(try builder.build())
            result.expectRejected(.applePaySignatureSigner, .signatureInvalid)
            #expect(result.status(.applePaySignatureMessageDigest) == .passed)
        }
    }

    @Test func signedDigestOfOtherContent() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.messageDigestOverride = [UInt8](repeating: 0xAB, count: 32) }
        let result = try await Fixture.verify(try builder.build())
        result.expectRejected(.applePaySignatureMessageDigest, .digestMismatch)
        #expect(result.status(.applePaySignatureSigner) == .passed)
    }

    @Test func contentTypeProblems() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.includeContentType = false }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureContentType, .missingAttribute)
        builder.cms = { $0.contentType = [1, 2, 840, 113549, 1, 7, 5] }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureContentType, .contentTypeMismatch)
        builder.cms = {
            $0.contentType = [1, 2, 840, 113549, 1, 7, 5]
            $0.encapsulatedContentType = [1, 2, 840, 113549, 1, 7, 5]
        }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureContentType, .contentTypeMismatch)
    }

    @Test func missingMessageDigestAndUnsupportedDigest() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.includeMessageDigest = false }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureMessageDigest, .missingAttribute)
        builder.cms = { $0.digestAlgorithm = [2, 16, 840, 1, 101, 3, 4, 2, 2] }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureMessageDigest, .unsupportedDigestAlgorithm)
    }

    @Test func attachedContentIsRejected() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.attachContent = true }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureCMS, .notDetached)
    }

    @Test func signerNotAmongTheCertificates() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.wrongSignerSerial = true }
        let result = try await Fixture.verify(try builder.build())
        result.expectRejected(.applePaySignatureCMS, .signerCertificateNotFound)
        for id in [CheckID.applePaySignatureMarkerOIDs, .applePaySignatureChain, .applePaySignatureSigner, .applePaySigningTime] {
            #expect(result.reason(id) == .prerequisiteFailed)
        }
        // Independent of the signature: key selection still ran.
        #expect(result.status(.applePayKeySelection) == .passed)
    }

    @Test func noLeafCertificateIncluded() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.includeLeaf = false }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureCMS, .signerCertificateNotFound)
    }

    @Test func noIntermediateIncluded() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.includeIntermediate = false }
        let result = try await Fixture.verify(try builder.build())
        result.expectRejected(.applePaySignatureMarkerOIDs, .intermediateNotFound)
    }

    @Test func twoSigners() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.duplicateSigner = true }
        try await Fixture.verify(try builder.build()).expectRejected(.applePaySignatureCMS, .unexpectedSignerCount)
    }

    @Test func noSignedAttributes() async throws {
        var builder = Fixture.builder()
        builder.cms = { $0.omitSignedAttributes = true }
        let result = try await Fixture.verify(try builder.build())
        result.expectRejected(.applePaySignatureSigner, .missingSignedAttributes)
        #expect(result.reason(.applePaySigningTime) == .missingSignedAttributes)
        #expect(result.reason(.applePaySignatureMessageDigest) == .missingSignedAttributes)
    }

    /// An EC_v1 token signed by the RSA leaf, and an RSA_v1 token with an ECDSA algorithm.
    @Test func algorithmMustFitTheVersion() async throws {
        var ec = Fixture.builder(Fixture.ecMerchant)
        ec.cms = { cms in
            cms.leaf = ApplePayFixturePKI.standard.rsaLeaf
            cms.signerKey = .rsa(ApplePayFixturePKI.standard.keys.rsaLeaf)
        }
        try await Fixture.verify(try ec.build()).expectRejected(.applePaySignatureSigner, .unsupportedSignatureAlgorithm)
        ec.cms = { cms in
            cms.leaf = ApplePayFixturePKI.standard.rsaLeaf
            cms.signerKey = .rsa(ApplePayFixturePKI.standard.keys.rsaLeaf)
            cms.signatureAlgorithm = [1, 2, 840, 10045, 4, 3, 2]
        }
        try await Fixture.verify(try ec.build()).expectRejected(.applePaySignatureSigner, .keyTypeMismatch)

        var rsa = Fixture.builder(Fixture.rsaMerchant)
        rsa.cms = { cms in
            cms.leaf = ApplePayFixturePKI.standard.ecLeaf
            cms.signerKey = .p256(ApplePayFixturePKI.standard.keys.ecLeaf)
        }
        try await Fixture.verify(try rsa.build()).expectRejected(.applePaySignatureSigner, .unsupportedSignatureAlgorithm)
    }

    @Test func algorithmProtectionMustNameTheAlgorithmsUsed() async throws {
        var builder = Fixture.builder()
        builder.cms = { cms in
            cms.includeAlgorithmProtection = true
            cms.algorithmProtectionDigest = [2, 16, 840, 1, 101, 3, 4, 2, 2]
        }
        let result = try await Fixture.verify(try builder.build())
        result.expectRejected(.applePaySignatureSigner, .algorithmProtectionMismatch)
        #expect(result.status(.applePaySignatureMessageDigest) == .passed)
    }

    // MARK: Keys and decryption

    @Test func noMatchingMerchantKey() async throws {
        let token = try Fixture.builder().build()
        let other = try ApplePayFixtureMerchant.ec()
        let result = try await Fixture.verify(token, with: try Fixture.verifier([other]))
        result.expectRejected(.applePayKeySelection, .noMatchingMerchantKey)
        let message = try #require(result.report.check(.applePayKeySelection)?.message)
        #expect(message.hasPrefix("No configured merchant key matches publicKeyHash \(Fixture.ecMerchant.publicKeyHash)"))
        // The signature is fine; decryption was never tried.
        #expect(result.status(.applePaySignatureSigner) == .passed)
        #expect(result.reason(.applePayDecryption) == .prerequisiteFailed)
    }

    @Test func keyRotationWithTwoKeys() async throws {
        let old = try ApplePayFixtureMerchant.ec()
        let new = try ApplePayFixtureMerchant.ec()
        let verifier = try Fixture.verifier([old, new, Fixture.rsaMerchant])
        for merchant in [old, new] {
            let token = try Fixture.builder(merchant).build()
            let result = try await Fixture.verify(token, with: verifier)
            result.expectAccepted()
            #expect(result.report.check(.applePayKeySelection)?.details["publicKeyHash"] == merchant.publicKeyHash)
            #expect(result.payment?.rawJSON == token.plaintext)
        }
        // RSA rotation too.
        let rsaOld = try ApplePayFixtureMerchant.rsa(keyIndex: 0)
        let rsaNew = try ApplePayFixtureMerchant.rsa(keyIndex: 1)
        let rsaVerifier = try Fixture.verifier([rsaOld, rsaNew])
        for merchant in [rsaOld, rsaNew] {
            try await Fixture.verify(try Fixture.builder(merchant).build(), with: rsaVerifier).expectAccepted()
        }
    }

    @Test func keyOfTheWrongTypeForTheVersion() async throws {
        var builder = Fixture.builder(Fixture.ecMerchant)
        builder.publicKeyHashOverride = Fixture.rsaMerchant.publicKeyHash
        try await Fixture.verify(try builder.build()).expectRejected(.applePayKeySelection, .keyTypeMismatch)
    }

    @Test func encryptedForAnotherMerchantIdentifier() async throws {
        var builder = Fixture.builder()
        builder.kdfMerchantIdentifier = "merchant.com.example.other"
        let result = try await Fixture.verify(try builder.build())
        result.expectRejected(.applePayDecryption, .authenticationFailed)
        #expect(result.report.check(.applePayDecryption)?.message.contains("merchant id") == true)
    }

    /// Hostile content that is validly signed still fails cleanly.
    @Test func signedButHostileKeyMaterial() async throws {
        let builder = Fixture.builder(Fixture.ecMerchant)
        var token = try builder.build()
        token.header["ephemeralPublicKey"] = Data([0x30, 0x03, 0x02, 0x01, 0x00]).base64EncodedString()
        try builder.resign(&token)
        try await Fixture.verify(token).expectRejected(.applePayDecryption, .invalidEphemeralPublicKey)

        let rsaBuilder = Fixture.builder(Fixture.rsaMerchant)
        var rsaToken = try rsaBuilder.build()
        rsaToken.header["wrappedKey"] = Data([UInt8](repeating: 7, count: 256)).base64EncodedString()
        try rsaBuilder.resign(&rsaToken)
        try await Fixture.verify(rsaToken).expectRejected(.applePayDecryption, .keyUnwrapFailed)

        var shortData = try builder.build()
        shortData.data = Data([UInt8](repeating: 1, count: 20)).base64EncodedString()
        try builder.resign(&shortData)
        try await Fixture.verify(shortData).expectRejected(.applePayDecryption, .authenticationFailed)
    }

    @Test func decryptedDataThatIsNotPaymentData() async throws {
        for plaintext in [
            "not json", #"{"applicationPrimaryAccountNumber":"4111111111111111"}"#,
            #"{"applicationPrimaryAccountNumber":"4111","applicationExpirationDate":"281231","currencyCode":"840","transactionAmount":true,"paymentDataType":"3DSecure","paymentData":{}}"#,
        ] {
            var builder = Fixture.builder()
            builder.plaintext = Array(plaintext.utf8)
            let result = try await Fixture.verify(try builder.build())
            result.expectRejected(.applePayPaymentData, .malformedPaymentData)
            #expect(result.status(.applePayDecryption) == .passed)
            #expect(!(result.report.check(.applePayPaymentData)?.message.contains("4111") ?? true))
        }
    }

    /// The documented shape of the payment data: each violation fails and names its field, never
    /// the value; both branches (3-D Secure and EMV) are accepted in their proper shape.
    @Test func paymentDataShape() async throws {
        func payment(
            expiration: String = "281231", currency: String = "840", type: String = "3DSecure",
            details: String = #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"07"}"#
        ) -> String {
            #"{"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"\#(expiration)","currencyCode":"\#(currency)","transactionAmount":1999,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"\#(type)","paymentData":\#(details)}"#
        }
        func verify(_ json: String) async throws -> ApplePayResult {
            var builder = Fixture.builder()
            builder.plaintext = Array(json.utf8)
            return try await Fixture.verify(try builder.build())
        }
        for accepted in [
            payment(), payment(details: #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"5"}"#),
            payment(details: #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA=="}"#),
            payment(type: "EMV", details: #"{"emvData":"AAEC"}"#),
        ] {
            try await verify(accepted).expectAccepted()
        }
        let violations: [(String, String)] = [
            (payment(expiration: "2812"), "applicationExpirationDate"),
            (payment(expiration: "281331"), "applicationExpirationDate"),
            (payment(expiration: "28123a"), "applicationExpirationDate"),
            (payment(currency: "USD"), "currencyCode"),
            (payment(type: "3dsecure"), "paymentDataType"),
            (payment(details: #"{"eciIndicator":"07"}"#), "paymentData.onlinePaymentCryptogram"),
            (payment(details: #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"007"}"#), "paymentData.eciIndicator"),
            (payment(type: "EMV"), "paymentData.emvData"),
        ]
        for (json, field) in violations {
            let result = try await verify(json)
            result.expectRejected(.applePayPaymentData, .paymentDataFieldInvalid)
            let check = try #require(result.report.check(.applePayPaymentData))
            #expect(check.details["field"] == field, "\(field)")
            #expect(check.message.contains(field))
            #expect(!check.message.contains("4111") && !check.message.contains("AM8lJ8"))
            #expect(result.payment == nil)
        }
    }

    // MARK: Replay and transaction details

    @Test func replayedTransactionId() async throws {
        let token = try Fixture.builder().build()
        let verifier = try Fixture.verifier()
        try await Fixture.verify(token, with: verifier).expectAccepted()
        let replay = try await Fixture.verify(token, with: verifier, at: Fixture.verificationTime.addingTimeInterval(5))
        replay.expectRejected(.replayTransactionId, .replayed)
        // Another token with the same transactionId (upper-case hex) is the same transaction.
        var builder = Fixture.builder()
        builder.transactionId = hexBytes(token.transactionId)
        var same = try builder.build()
        same.header["transactionId"] = same.transactionId.uppercased()
        try builder.resign(&same)
        try await Fixture.verify(same, with: verifier).expectRejected(.replayTransactionId, .replayed)
    }

    /// A token rejected for another reason does not use up its transactionId.
    @Test func rejectedTokensDoNotConsumeTheTransactionId() async throws {
        let token = try Fixture.builder().build()
        let verifier = try Fixture.verifier()
        let wrongAmount = try await Fixture.verify(token, with: verifier, expectations: ApplePayExpectations(transactionAmount: 5))
        wrongAmount.expectRejected(.applePayExpectAmount, .amountMismatch)
        #expect(wrongAmount.reason(.replayTransactionId) == .prerequisiteFailed)
        let accepted = try await Fixture.verify(token, with: verifier, expectations: ApplePayExpectations(transactionAmount: 1999))
        accepted.expectAccepted()
        #expect(accepted.report.check(.applePayExpectAmount)?.message == "Amount 1999 (minor units of 840) as expected")
    }

    @Test func replayStoreFailureIsIndeterminate() async throws {
        let result = try await Fixture.verify(try Fixture.builder().build(), with: try Fixture.verifier(replayStore: UnreachableReplayStore()))
        #expect(result.verdict == .indeterminate)
        #expect(result.report.isRetryable)
        #expect(result.status(.replayTransactionId) == .error)
        #expect(result.payment == nil)
    }

    @Test func transactionExpectations() async throws {
        var builder = Fixture.builder()
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash("order-42")
        let token = try builder.build()
        let hash = try #require(token.header["applicationData"])

        let good = try await Fixture.verify(
            token, expectations: ApplePayExpectations(currencyCode: "840", transactionAmount: 1999, applicationData: hash.uppercased()))
        good.expectAccepted()
        for id in [CheckID.applePayExpectCurrency, .applePayExpectAmount, .applePayExpectApplicationData] {
            #expect(good.status(id) == .passed)
        }

        let currency = try await Fixture.verify(token, expectations: ApplePayExpectations(currencyCode: "978"))
        currency.expectRejected(.applePayExpectCurrency, .currencyMismatch)
        #expect(currency.report.check(.applePayExpectCurrency)?.message == "The token's currency is 840, expected 978")

        let amount = try await Fixture.verify(token, expectations: ApplePayExpectations(transactionAmount: Decimal(string: "19.99")))
        amount.expectRejected(.applePayExpectAmount, .amountMismatch)

        let other = ApplePayTokenBuilder.applicationDataHash("order-43").map { String(format: "%02x", $0) }.joined()
        let applicationData = try await Fixture.verify(token, expectations: ApplePayExpectations(applicationData: other))
        applicationData.expectRejected(.applePayExpectApplicationData, .applicationDataMismatch)

        let without = try Fixture.builder().build()
        let missing = try await Fixture.verify(without, expectations: ApplePayExpectations(applicationData: hash))
        missing.expectRejected(.applePayExpectApplicationData, .applicationDataMissing)

        // No expectations: reported as not applicable, not as passed.
        let none = try await Fixture.verify(try Fixture.builder().build())
        #expect(none.report.check(.applePayExpectAmount)?.reason == .notApplicable)
    }

    // MARK: Redaction

    @Test func paymentDataDescriptionsAreRedacted() async throws {
        let token = try Fixture.builder().build()
        let result = try await Fixture.verify(token)
        let payment = try #require(result.payment)
        var dumped = ""
        dump(payment, to: &dumped)
        for text in [payment.description, "\(payment)", String(reflecting: payment), dumped, "\(result)"] {
            #expect(!text.contains("4111111111111111"))
            #expect(!text.contains("AM8lJ8PaVr5bAAeoLxMCAoABFA=="))
            #expect(!text.contains("Jane Fixture"))
        }
        #expect(payment.description.contains("••••1111"))
        #expect(payment.maskedAccountNumber == "••••1111")
        // Reports never carry payment data either.
        let reportJSON = String(decoding: try JSONEncoder().encode(result.report), as: UTF8.self)
        #expect(!reportJSON.contains("4111111111111111"))
        #expect(!reportJSON.contains("AM8lJ8PaVr5bAAeoLxMCAoABFA"))
    }
}

/// A replay store whose backend cannot be reached (the operational-error channel).
struct UnreachableReplayStore: ReplayStore {
    func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date, idempotency: IdempotencyTag?) async throws -> ReplayOutcome {
        throw OperationalError("storeUnavailable", "the replay store did not answer", retryable: true)
    }
    func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws { throw OperationalError("storeUnavailable", "down") }
    func consumeNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?, attempt: NonceAttempt?) async throws -> NonceConsumption {
        throw OperationalError("storeUnavailable", "down")
    }
    func lookupNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?) async throws -> NonceLookup {
        throw OperationalError("storeUnavailable", "down")
    }
    func releaseNonce(_ nonce: String, attempt: NonceAttempt, now: Date) async throws -> Bool { throw OperationalError("storeUnavailable", "down") }
    func purgeExpired(now: Date) async throws -> Int { throw OperationalError("storeUnavailable", "down") }
    func ping() async throws { throw OperationalError("storeUnavailable", "down") }
    func outstandingNonceCount(now: Date) async throws -> Int { throw OperationalError("storeUnavailable", "down") }
}

func hexBytes(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
        out.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return out
}
