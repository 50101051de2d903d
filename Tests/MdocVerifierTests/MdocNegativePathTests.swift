import Crypto
import CryptoExtras
import Foundation
import Mdoc
import SwiftASN1
import Testing
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport
import X509

@testable import MdocVerifier

/// One test per check, with responses built by the fixture builder (own IACA, DS, device key).
@Suite struct MdocNegativePathTests {
    static let time = Date(timeIntervalSince1970: 1_700_000_000 + 86400)  // a day after signing
    let transcript = SessionTranscript.appleInApp(
        nonce: Array(repeating: 7, count: 32), merchantID: "merchant", teamID: "team", recipientKeyHash: Array(repeating: 1, count: 32))
    let deviceKey = P256.Signing.PrivateKey()

    func verify(
        _ fixture: MdocFixture = MdocFixture(), pki: MdocPKI? = nil, policy: MdocVerificationPolicy = .iso18013Strict,
        readerKey: P256.KeyAgreement.PrivateKey? = nil, at time: Date = time, transcriptOverride: SessionTranscript? = nil,
        mutate: ((inout [UInt8]) -> Void)? = nil
    ) async throws -> VerificationReport {
        let pki = try pki ?? MdocPKI()
        var bytes = try fixture.deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
        mutate?(&bytes)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: policy)
        return await verifier.verify(deviceResponse: bytes, transcript: transcriptOverride ?? transcript, readerKey: readerKey, context: .at(time))
            .report
    }

    @Test func cleanFixtureIsAccepted() async throws {
        let report = try await verify()
        #expect(report.verdict == .accepted, "\(report.failures.map(\.message))")
        // The fixture discloses no issuing_country: that one check is not applicable.
        #expect(report.checks.allSatisfy { $0.status == .passed || ($0.id == .mdocIssuingCountryElement && $0.status == .skipped) })
        #expect(report.checks.count == 14)
    }

    // mdoc.issuer.signature: an all-zero signature (the shape of developer-profile mock data) says it is test data.
    @Test func anAllZeroIssuerSignatureIsTestData() async throws {
        let report = try await verify { bytes in
            guard let response = try? DeviceResponse(cborBytes: bytes), let document = try? response.documentResults.first?.get() else { return }
            let signature = document.issuerSigned.issuerAuth.signature
            for index in signature.indices { bytes[index] = 0 }
        }
        let check = try #require(report.check(.mdocIssuerSignature))
        #expect(check.reason == "testDataSignature", "\(check.message)")
        #expect(check.message.contains("test data"))
        // Any other bad signature stays signatureInvalid.
        let altered = try await verify { bytes in
            guard let response = try? DeviceResponse(cborBytes: bytes), let document = try? response.documentResults.first?.get() else { return }
            bytes[document.issuerSigned.issuerAuth.signature.startIndex] ^= 0x01
        }
        #expect(altered.check(.mdocIssuerSignature)?.reason == "signatureInvalid")
    }

    // mdoc.issuingCountry.element
    @Test func issuingCountryEqualsTheIACAsCountryName() async throws {
        func fixture(_ country: CBORNode) -> MdocFixture {
            var f = MdocFixture()
            f.elements.append(MdocFixture.Element(MdocFixture.isoNameSpace, "issuing_country", country))
            return f
        }
        let same = try await verify(fixture(.text("US")))
        #expect(same.check(.mdocIssuingCountryElement)?.status == .passed)
        #expect(same.check(.mdocIssuingCountryElement)?.message == "org.iso.18013.5.1/issuing_country is US, the IACA's countryName.")
        #expect(same.verdict == .accepted)
        let other = try await verify(fixture(.text("DE")))
        #expect(other.check(.mdocIssuingCountryElement)?.reason == .issuingCountryMismatch)
        #expect(other.check(.mdocIssuingCountryElement)?.details["certificate"] == "US")
        #expect(
            other.check(.mdocIssuingCountryElement)?.message
                == "org.iso.18013.5.1/issuing_country is \"DE\" but the IACA's countryName is US: the document claims another issuing country than the authority that issued it."
        )
        #expect(other.verdict == .rejected)
        #expect(try await verify(fixture(.unsigned(840))).check(.mdocIssuingCountryElement)?.reason == .issuingCountryMismatch)
        // An IACA without countryName: a failure under the strict policy, a warning in-app.
        var options = MdocPKI.Options()
        options.iacaCountry = nil
        options.dsCountry = nil
        let noCountry = try MdocPKI(options)
        #expect(try await verify(fixture(.text("US")), pki: noCountry).check(.mdocIssuingCountryElement)?.reason == "countryNameMissing")
        let inApp = try await verify(fixture(.text("US")), pki: noCountry, policy: .appleInApp)
        #expect(inApp.check(.mdocIssuingCountryElement)?.status == .skipped)
        #expect(inApp.warnings.contains { $0.code == "countryNameAbsent" && $0.message.contains("issuing_country") })
        #expect(inApp.verdict == .accepted)
    }

    // mdoc.response.structure
    @Test func responseVersionStatusAndDocuments() async throws {
        var old = MdocFixture()
        old.responseVersion = "0.9"
        #expect(try await verify(old).check(.mdocResponseStructure)?.reason == "unsupportedVersion")
        var bad = MdocFixture()
        bad.responseVersion = "one"
        #expect(try await verify(bad).check(.mdocResponseStructure)?.reason == "invalidVersion")
        var status = MdocFixture()
        status.status = 10
        #expect(try await verify(status).check(.mdocResponseStructure)?.reason == "responseStatus")
        let empty = try CBORNode.map(["version": .text("1.0"), "documents": .array([]), "status": .unsigned(0)])
        let verifier = MdocVerifier(trustStore: IACATrustStore(), policy: .iso18013Strict)
        let report = await verifier.verify(deviceResponse: Array(empty.encodedBytes), transcript: transcript, context: .at(Self.time)).report
        #expect(report.check(.mdocResponseStructure)?.reason == "noDocuments")
        #expect(report.verdict == .rejected)
    }

    @Test(arguments: [
        "a0", "80", "a2 6776657273696f6e 63312e30 6673746174757300", "ff", "a3 6776657273696f6e 63312e30 69646f63756d656e7473 81 a0 6673746174757300",
    ])
    func hostileResponsesBecomeFailedChecks(_ input: String) async throws {
        let verifier = MdocVerifier(trustStore: IACATrustStore(), policy: .iso18013Strict)
        let report = await verifier.verify(deviceResponse: hex(input), transcript: transcript, context: .at(Self.time)).report
        #expect(report.verdict == .rejected)
        #expect(!report.failures.isEmpty)
    }

    // mdoc.document.structure
    @Test func notTag24WrappedItemFailsTheDocumentStructure() async throws {
        // Replace the first IssuerSignedItemBytes (d8 18 ...) tag with tag 25.
        let report = try await verify { bytes in
            let node = try! CBORDecoder.decode(bytes)
            let nameSpaces = try! node.map()["documents"]!.array()[0].map()["issuerSigned"]!.map()["nameSpaces"]!.map()
            let firstItem = try! nameSpaces[0].value.array()[0]
            #expect(bytes[firstItem.offset] == 0xd8 && bytes[firstItem.offset + 1] == 0x18)
            bytes[firstItem.offset + 1] = 0x19
        }
        #expect(report.check(.mdocDocumentStructure)?.status == .failed)
        #expect(report.check(.mdocIssuerSignature)?.reason == .prerequisiteFailed)
        #expect(report.verdict == .rejected)
    }

    // mdoc.issuer.signature
    @Test func issuerSignatureFailures() async throws {
        var noChain = MdocFixture()
        noChain.includeX5Chain = false
        let report = try await verify(noChain)
        #expect(report.check(.mdocIssuerSignature)?.reason == "missingCertificateChain")
        // The chain depends on the issuer signature.
        #expect(report.check(.mdocIssuerChain)?.reason == .prerequisiteFailed)
        #expect(report.check(.mdocIssuerChain)?.details["prerequisite"] == "mdoc.issuer.signature")

        var unknownAlgorithm = MdocFixture()
        unknownAlgorithm.issuerAlgorithm = -999
        #expect(try await verify(unknownAlgorithm).check(.mdocIssuerSignature)?.reason == "unsupportedAlgorithm")

        var der = MdocFixture()
        der.derIssuerSignature = true
        let derReport = try await verify(der)
        #expect(derReport.check(.mdocIssuerSignature)?.reason == "invalidSignatureFormat")
        #expect(derReport.check(.mdocIssuerSignature)?.message.contains("DER") == true)

        // Signed by another DS than the one in x5chain: take the response of one PKI, trust the IACA.
        let other = try await verify { bytes in
            // flip a byte inside the signature (last bytes of issuerAuth are the signature; find it via decoding)
            let node = try! CBORDecoder.decode(bytes)
            let auth = try! node.map()["documents"]!.array()[0].map()["issuerSigned"]!.map()["issuerAuth"]!.array()[3]
            bytes[auth.bytesValue!.startIndex + 5] ^= 0x01
        }
        #expect(other.check(.mdocIssuerSignature)?.reason == "signatureInvalid")
    }

    // mdoc.issuer.chain
    @Test func chainFailures() async throws {
        let pki = try MdocPKI()
        let untrusted = try MdocPKI()
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [untrusted.iaca]), policy: .iso18013Strict)
        let report = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(Self.time)).report
        #expect(report.check(.mdocIssuerChain)?.reason == "untrustedIssuer")

        var expiredOptions = MdocPKI.Options()
        expiredOptions.dsNotAfter = Self.time.addingTimeInterval(-60)
        #expect(try await verify(pki: try MdocPKI(expiredOptions)).check(.mdocIssuerChain)?.reason == "certificateExpired")

        let empty = MdocVerifier(trustStore: IACATrustStore(), policy: .iso18013Strict)
        #expect(
            await empty.verify(deviceResponse: bytes, transcript: transcript, context: .at(Self.time)).report.check(.mdocIssuerChain)?.reason
                == "noTrustAnchor")

        // A root restricted to another docType does not vouch for an mDL.
        var restricted = IACATrustStore()
        restricted.add(pki.iaca, docTypes: ["org.iso.23220.photoid.1"])
        let scoped = MdocVerifier(trustStore: restricted, policy: .iso18013Strict)
        #expect(
            await scoped.verify(deviceResponse: bytes, transcript: transcript, context: .at(Self.time)).report.check(.mdocIssuerChain)?.reason
                == "noTrustAnchor")
    }

    // mdoc.issuer.certificateProfile
    @Test func profileFailures() async throws {
        var ca = MdocPKI.Options()
        ca.dsIsCA = true
        let caReport = try await verify(pki: try MdocPKI(ca))
        #expect(caReport.check(.mdocIssuerCertificateProfile)?.reason == "profileViolation")
        #expect(caReport.check(.mdocIssuerCertificateProfile)?.message.contains("marked as a CA") == true)
        var noEKU = MdocPKI.Options()
        noEKU.dsHasEKU = false
        #expect(try await verify(pki: try MdocPKI(noEKU)).check(.mdocIssuerCertificateProfile)?.message.contains("1.0.18013.5.1.2") == true)
        var noDigitalSignature = MdocPKI.Options()
        noDigitalSignature.dsKeyUsageDigitalSignature = false
        #expect(try await verify(pki: try MdocPKI(noDigitalSignature)).check(.mdocIssuerCertificateProfile)?.status == .failed)
    }

    // mdoc.issuer.country
    @Test func countryFailures() async throws {
        var missing = MdocPKI.Options()
        missing.iacaCountry = nil
        missing.dsCountry = nil
        let strict = try await verify(pki: try MdocPKI(missing))
        #expect(strict.check(.mdocIssuerCountry)?.reason == "countryNameMissing")
        #expect(strict.verdict == .rejected)
        let lenient = try await verify(pki: try MdocPKI(missing), policy: .appleInApp)
        #expect(lenient.check(.mdocIssuerCountry)?.status == .skipped)
        #expect(lenient.warnings.contains { $0.code == "countryNameAbsent" })
        #expect(lenient.verdict == .accepted)

        var mismatch = MdocPKI.Options()
        mismatch.dsCountry = "DE"
        #expect(try await verify(pki: try MdocPKI(mismatch), policy: .appleInApp).check(.mdocIssuerCountry)?.reason == "countryNameMismatch")
        var invalid = MdocPKI.Options()
        invalid.dsCountry = "USA"
        invalid.iacaCountry = "USA"
        #expect(try await verify(pki: try MdocPKI(invalid)).check(.mdocIssuerCountry)?.reason == "countryNameInvalid")

        // The messages name each holder in order: the document signer, then the IACA.
        #expect(
            strict.check(.mdocIssuerCountry)?.message
                == "countryName is missing in the document signer and the IACA; ISO 18013-5 requires an ISO 3166-1 alpha-2 country in both.")
        var iacaMissing = MdocPKI.Options()
        iacaMissing.iacaCountry = nil
        #expect(
            try await verify(pki: try MdocPKI(iacaMissing)).check(.mdocIssuerCountry)?.message
                == "countryName is missing in the IACA; ISO 18013-5 requires an ISO 3166-1 alpha-2 country in both.")
        #expect(
            try await verify(pki: try MdocPKI(invalid)).check(.mdocIssuerCountry)?.message
                == "The document signer's countryName \"USA\" is not an officially assigned ISO 3166-1 alpha-2 code.")
        var iacaInvalid = MdocPKI.Options()
        iacaInvalid.iacaCountry = "XX"
        #expect(
            try await verify(pki: try MdocPKI(iacaInvalid)).check(.mdocIssuerCountry)?.message
                == "The IACA's countryName \"XX\" is not an officially assigned ISO 3166-1 alpha-2 code.")
    }

    // mdoc.issuer.country: a real ISO 3166-1 code, not any two capitals (seed 002: "countryName exists
    // and contains a ISO 3166-1 alpha-2 code").
    @Test func countryNameMustBeAnAssignedISO3166Code() async throws {
        for code in ["XX", "ZZ", "AA", "QM", "XA", "EU", "UK", "YU"] {
            var options = MdocPKI.Options()
            options.dsCountry = code
            options.iacaCountry = code
            let report = try await verify(pki: try MdocPKI(options))
            #expect(report.check(.mdocIssuerCountry)?.reason == "countryNameInvalid", "\(code)")
            #expect(report.verdict == .rejected)
        }
        for code in ["US", "DE", "JP", "SS", "AX"] {
            var options = MdocPKI.Options()
            options.dsCountry = code
            options.iacaCountry = code
            #expect(try await verify(pki: try MdocPKI(options)).check(.mdocIssuerCountry)?.status == .passed, "\(code)")
        }
        #expect(CountryCodes.officiallyAssigned.count == 249)
        #expect(CountryCodes.officiallyAssigned.allSatisfy { $0.utf8.count == 2 && $0.utf8.allSatisfy { (65...90).contains($0) } })
    }

    // mdoc.issuer.country for a document signer trusted directly (no IACA to compare with)
    @Test func pinnedDocumentSignerCountry() async throws {
        func verifyPinned(_ options: MdocPKI.Options, policy: MdocVerificationPolicy) async throws -> VerificationReport {
            let pki = try MdocPKI(options)
            let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
            let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [pki.ds]), policy: policy)
            return await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(Self.time)).report
        }
        let good = try await verifyPinned(MdocPKI.Options(), policy: .iso18013Strict)
        #expect(good.check(.mdocIssuerChain)?.status == .passed)
        #expect(good.check(.mdocIssuerCountry)?.status == .passed)
        #expect(good.check(.mdocIssuerCountry)?.message.contains("pinned document signer") == true)

        var missing = MdocPKI.Options()
        missing.dsCountry = nil
        let strict = try await verifyPinned(missing, policy: .iso18013Strict)
        #expect(strict.check(.mdocIssuerCountry)?.reason == "countryNameMissing")
        #expect(strict.check(.mdocIssuerCountry)?.message.contains("pinned document signer") == true)
        #expect(strict.verdict == .rejected)
        let lenient = try await verifyPinned(missing, policy: .appleInApp)
        #expect(lenient.check(.mdocIssuerCountry)?.status == .skipped)

        var invalid = MdocPKI.Options()
        invalid.dsCountry = "USA"
        #expect(try await verifyPinned(invalid, policy: .iso18013Strict).check(.mdocIssuerCountry)?.reason == "countryNameInvalid")
    }

    // mdoc.mso.structure and mdoc.mso.version
    @Test func msoFailures() async throws {
        var unwrapped = MdocFixture()
        unwrapped.wrapMSOInTag24 = false
        let report = try await verify(unwrapped)
        #expect(report.check(.mdocMSOStructure)?.reason == "msoNotTag24Wrapped")
        #expect(report.check(.mdocValueDigests)?.reason == .prerequisiteFailed)
        #expect(report.check(.mdocIssuerSignature)?.status == .passed)

        var old = MdocFixture()
        old.msoVersion = "0.9"
        #expect(try await verify(old).check(.mdocMSOVersion)?.reason == "unsupportedVersion")
        var newer = MdocFixture()
        newer.msoVersion = "1.1"
        #expect(try await verify(newer).check(.mdocMSOVersion)?.reason == "versionAboveResponse")
    }

    // mdoc.valueDigests
    @Test func digestFailures() async throws {
        var tampered = MdocFixture()
        tampered.tamperedElement = "family_name"
        let report = try await verify(tampered)
        #expect(report.check(.mdocValueDigests)?.reason == "digestMismatch")
        #expect(report.check(.mdocValueDigests)?.details["mismatched"] == "org.iso.18013.5.1/family_name")
        #expect(report.check(.mdocIssuerSignature)?.status == .passed)

        var missing = MdocFixture()
        missing.undigestedElement = "given_name"
        #expect(try await verify(missing).check(.mdocValueDigests)?.reason == "digestMissing")
        var duplicate = MdocFixture()
        duplicate.duplicateDigestID = true
        #expect(try await verify(duplicate).check(.mdocValueDigests)?.reason == "duplicateDigestID")
        var unknown = MdocFixture()
        unknown.digestAlgorithm = "MD5"
        #expect(try await verify(unknown).check(.mdocValueDigests)?.reason == "unsupportedDigestAlgorithm")
        for algorithm in ["SHA-384", "SHA-512"] {
            var other = MdocFixture()
            other.digestAlgorithm = algorithm
            #expect(try await verify(other).check(.mdocValueDigests)?.status == .passed)
        }
    }

    // mdoc.docType
    @Test func docTypeFailures() async throws {
        var mismatch = MdocFixture()
        mismatch.msoDocType = "org.iso.23220.photoid.1"
        #expect(try await verify(mismatch).check(.mdocDocType)?.reason == "docTypeMismatch")
        var policy = MdocVerificationPolicy.iso18013Strict
        policy.acceptedDocTypes = ["org.iso.23220.photoid.1"]
        // A docType the policy does not accept is refused whole, before any signature.
        let refused = try await verify(policy: policy)
        #expect(refused.check(.mdocResponseStructure)?.reason == "docTypeNotAccepted")
        #expect(refused.check(.mdocIssuerSignature)?.status == .skipped && refused.check(.mdocDocType)?.status == .skipped)
    }

    // mdoc.validity
    @Test func validityWindow() async throws {
        let fixture = MdocFixture()
        #expect(try await verify(at: fixture.validFrom.addingTimeInterval(-61)).check(.mdocValidity)?.reason == "notYetValid")
        #expect(try await verify(at: fixture.validFrom.addingTimeInterval(-59)).check(.mdocValidity)?.status == .passed)
        #expect(try await verify(at: fixture.validUntil.addingTimeInterval(59)).check(.mdocValidity)?.status == .passed)
        #expect(try await verify(at: fixture.validUntil.addingTimeInterval(61)).check(.mdocValidity)?.reason == "expired")
        // A pass reports the same dates as a failure does, written when the report is read.
        let passed = try #require(try await verify(at: fixture.validFrom.addingTimeInterval(-59)).check(.mdocValidity))
        let failed = try #require(try await verify(at: fixture.validFrom.addingTimeInterval(-61)).check(.mdocValidity))
        #expect(passed.details.keys.sorted() == ["clockSkewSeconds", "signed", "time", "validFrom", "validUntil"])
        for key in ["clockSkewSeconds", "signed", "validFrom", "validUntil"] { #expect(passed.details[key] == failed.details[key], "\(key)") }
        #expect(passed.details["time"] == RFC3339.formatWholeSeconds(fixture.validFrom.addingTimeInterval(-59)))
        #expect(passed.message == "The MSO is valid from \(passed.details["validFrom"]!) until \(passed.details["validUntil"]!).")
        var noSkew = MdocVerificationPolicy.iso18013Strict
        noSkew.clockSkew = .seconds(0)
        #expect(try await verify(policy: noSkew, at: fixture.validFrom.addingTimeInterval(-3)).check(.mdocValidity)?.reason == "notYetValid")
        var inconsistent = MdocFixture()
        inconsistent.validFrom = inconsistent.signed.addingTimeInterval(-10)
        #expect(try await verify(inconsistent).check(.mdocValidity)?.reason == "inconsistentValidity")
    }

    // mdoc.validity: ISO 18013-5 §9.1.2.4, the MSO is signed while its document signer is valid.
    @Test func msoSignedOutsideTheSignersValidityIsRefused() async throws {
        // The fixture's signer is valid from 2023-06-01; an MSO dated a month before it existed.
        var early = MdocFixture()
        early.signed = MdocPKI.dsNotBefore.addingTimeInterval(-30 * 86400)
        let report = try await verify(early)
        let check = try #require(report.check(.mdocValidity))
        #expect(check.status == .failed)
        #expect(check.reason == .signedOutsideSignerValidity)
        #expect(check.details["signerNotBefore"] == "2023-06-01T00:00:00Z")
        #expect(report.check(.mdocIssuerChain)?.status == .passed)
        #expect(report.verdict == .rejected)
        // Signed after the signer expired (the verification time inside a longer-lived signer's
        // window would otherwise accept it).
        var options = MdocPKI.Options()
        options.dsNotAfter = MdocPKI.dsNotBefore.addingTimeInterval(10 * 86400)
        let shortLived = try MdocPKI(options)
        let late = try await verify(pki: shortLived)
        #expect(late.check(.mdocValidity)?.reason == .signedOutsideSignerValidity)
        // Signed the second the signer starts: inside.
        var edge = MdocFixture()
        edge.signed = MdocPKI.dsNotBefore
        #expect(try await verify(edge).check(.mdocValidity)?.status == .passed)
    }

    // mdoc.device.authentication
    @Test func deviceAuthenticationFailures() async throws {
        let other = SessionTranscript.appleInApp(
            nonce: Array(repeating: 8, count: 32), merchantID: "merchant", teamID: "team", recipientKeyHash: Array(repeating: 1, count: 32))
        #expect(try await verify(transcriptOverride: other).check(.mdocDeviceAuthentication)?.reason == "deviceSignatureInvalid")
        var missing = MdocFixture()
        missing.omitDeviceSigned = true
        #expect(try await verify(missing).check(.mdocDeviceAuthentication)?.reason == "deviceSignedMissing")

        let reader = P256.KeyAgreement.PrivateKey()
        var mac = MdocFixture()
        mac.macReaderKey = reader.publicKey
        #expect(try await verify(mac, readerKey: reader).check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(try await verify(mac, readerKey: P256.KeyAgreement.PrivateKey()).check(.mdocDeviceAuthentication)?.reason == "deviceMacInvalid")
        let noReader = try await verify(mac)
        #expect(noReader.check(.mdocDeviceAuthentication)?.status == .error)
        #expect(noReader.verdict == .indeterminate)
    }

    // mdoc.device.keyAuthorizations
    @Test func keyAuthorizations() async throws {
        var allowed = MdocFixture()
        allowed.deviceSignedElements = [.init("org.example.device", "nickname", .text("Erika"))]
        allowed.keyAuthorizations = (nameSpaces: ["org.example.device"], dataElements: [:])
        #expect(try await verify(allowed).check(.mdocDeviceKeyAuthorizations)?.status == .passed)
        var byElement = allowed
        byElement.keyAuthorizations = (nameSpaces: [], dataElements: ["org.example.device": ["nickname"]])
        #expect(try await verify(byElement).check(.mdocDeviceKeyAuthorizations)?.status == .passed)
        var denied = allowed
        denied.keyAuthorizations = (nameSpaces: ["org.other"], dataElements: [:])
        let report = try await verify(denied)
        #expect(report.check(.mdocDeviceKeyAuthorizations)?.reason == "unauthorizedDeviceSignedElement")
        #expect(report.verdict == .rejected)
        // No keyAuthorizations at all: the device key is authorized for no element (§9.1.2.4).
        var absent = allowed
        absent.keyAuthorizations = nil
        let unauthorized = try await verify(absent)
        #expect(unauthorized.check(.mdocDeviceKeyAuthorizations)?.reason == "unauthorizedDeviceSignedElement")
        #expect(unauthorized.check(.mdocDeviceKeyAuthorizations)?.details["unauthorized"] == "org.example.device/nickname")
        #expect(unauthorized.verdict == .rejected)
        // Without device-signed elements there is nothing to authorize.
        #expect(try await verify(MdocFixture()).check(.mdocDeviceKeyAuthorizations)?.status == .passed)
    }

    // The iOS Simulator: zero signatures, no issuer certificate. Never accepted.
    @Test func simulatorStyleResponseIsNeverAccepted() async throws {
        var simulator = MdocFixture()
        simulator.simulatorStyle = true
        for policy in [MdocVerificationPolicy.iso18013Strict, .appleInApp] {
            let report = try await verify(simulator, policy: policy)
            #expect(report.verdict == .rejected)
            #expect(report.check(.mdocIssuerSignature)?.status == .failed)
            #expect(report.check(.mdocDeviceAuthentication)?.status == .failed)
        }
    }

    @Test func truncatedFixtureAtEveryTenthByteNeverCrashesOrAccepts() async throws {
        let pki = try MdocPKI()
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: .iso18013Strict)
        for length in stride(from: 0, to: bytes.count, by: 10) {
            let report = await verifier.verify(deviceResponse: Array(bytes[..<length]), transcript: transcript, context: .at(Self.time)).report
            #expect(report.verdict == .rejected)
        }
    }
}

/// Element values nested beyond the depth budget (tag-24 items inside tag-24 items): a failed
/// structure check, never a stack overflow, whoever signed them.
@Suite struct MdocNestingBudgetTests {
    let transcript = SessionTranscript.appleInApp(
        nonce: Array(repeating: 7, count: 32), merchantID: "merchant", teamID: "team", recipientKeyHash: Array(repeating: 1, count: 32))

    @Test(arguments: [40, 20_000, 100_000])
    func deeplyNestedElementValueFailsTheStructureCheck(levels: Int) async throws {
        let pki = try MdocPKI()
        var fixture = MdocFixture()
        fixture.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "family_name", try HostileCBOR.nestedTag24Node(levels: levels))]
        let bytes = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: .iso18013Strict)
        let result = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(MdocNegativePathTests.time))
        #expect(result.report.verdict == .rejected)
        let failures = result.report.failures.map { "\($0.id.rawValue): \($0.reason.rawValue)" }
        #expect(failures.contains("mdoc.document.structure: depthLimitExceeded"), "\(failures)")
        #expect(result.documents.isEmpty)
    }

    @Test func valuesInsideTheBudgetAreStillDecoded() async throws {
        let pki = try MdocPKI()
        var fixture = MdocFixture()
        fixture.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "family_name", try HostileCBOR.nestedTag24Node(levels: 3))]
        let bytes = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: .iso18013Strict)
        let result = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(MdocNegativePathTests.time))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        #expect(result.documents.first?.element(MdocFixture.isoNameSpace, "family_name") == .text("abc"))
    }

    @Test func elementValueRenderingIsBoundedByTheBudget() throws {
        let value = ElementValue(try HostileCBOR.nestedTag24Node(levels: 100_000), depth: IssuerSignedItem.elementValueDepth, limits: .default)
        guard case .other(let diagnostic) = value else {
            Issue.record("expected the undecoded rest in diagnostic notation, got a decoded value")
            return
        }
        #expect(diagnostic.hasPrefix("24(h'"))
        let marked = diagnostic.hasSuffix("/ not decoded: nested deeper than 3 levels /)")
        #expect(marked)
        #expect(ElementValue(try HostileCBOR.nestedTag24Node(levels: 2)) == .text("abc"))
    }
}

/// mdoc.issuer.certificateProfile, Table B.3 whole: the key identifiers match, algorithms and
/// critical extensions are Annex B's, and the rules Apple's test issuer breaks fail under the strict
/// policy and warn under the in-app one.
@Suite struct CertificateProfileTableB3Tests {
    let transcript = SessionTranscript.appleInApp(
        nonce: Array(repeating: 7, count: 32), merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 1, count: 32))
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)

    /// A document signer issued by `base`'s IACA with the given extensions and validity.
    func signer(_ base: MdocPKI, notAfter: Date = Date(timeIntervalSince1970: 1_700_000_000 + 86_400 * 100), extensions: [Certificate.Extension])
        throws -> MdocPKI
    {
        let key = P256.Signing.PrivateKey()
        let ds = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_690_000_000), notValidAfter: notAfter,
            issuer: base.iaca.subject,
            subject: try DistinguishedName {
                CountryName("US")
                CommonName("Test DS")
            },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: try Certificate.Extensions(extensions), issuerPrivateKey: .init(base.iacaKey))
        return MdocPKI(iacaKey: base.iacaKey, iaca: base.iaca, dsKey: key, ds: ds)
    }

    func verify(_ pki: MdocPKI, policy: MdocVerificationPolicy = .iso18013Strict) async throws -> VerificationReport {
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        return await MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: policy).verify(
            deviceResponse: bytes, transcript: transcript, context: .at(time)
        ).report
    }

    @Test func theFixtureFollowsTheWholeProfile() async throws {
        let report = try await verify(try MdocPKI())
        #expect(report.check(.mdocIssuerCertificateProfile)?.status == .passed, "\(report.failures.map(\.message))")
        #expect(report.check(.mdocIssuerCertificateProfile)?.details["profileWarnings"] == nil)
    }

    @Test func aMismatchedAuthorityKeyIdentifierAndUnknownCriticalExtensionsFail() async throws {
        let base = try MdocPKI()
        func common() throws -> [Certificate.Extension] {
            [
                try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
                try Certificate.Extension(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])]), critical: true),
                try Certificate.Extension(SubjectKeyIdentifier(keyIdentifier: [1, 2, 3]), critical: false),
                AnnexBExtensions.issuerAltName(email: "a@b.example"), AnnexBExtensions.crlDistributionPoint("https://b.example/crl"),
            ]
        }
        let wrongAKI = try signer(
            base, extensions: try common() + [try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: [9, 9, 9]), critical: false)])
        let report = try await verify(wrongAKI)
        #expect(report.check(.mdocIssuerCertificateProfile)?.message.contains("authority key identifier does not equal") == true)
        #expect(report.verdict == .rejected)
        let criticalUnknown = try signer(
            base,
            extensions: try common() + [
                try Certificate.Extension(
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(base.iacaKey.publicKey)).keyIdentifier), critical: false),
                Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 99999, 1], critical: true, value: [0x05, 0x00]),
            ])
        // Path validation already refuses a critical extension nobody understands; the profile names it too.
        let unknown = try await verify(criticalUnknown)
        #expect(unknown.verdict == .rejected)
        #expect(unknown.check(.mdocIssuerChain)?.status == .failed)
        #expect(
            CertificateProfileCheck.violations(documentSigner: criticalUnknown.ds, iaca: base.iaca).contains {
                $0.contains("critical extension 1.3.6.1.4.1.99999.1")
            })
    }

    @Test func appleStyleSignersFailStrictAndWarnInApp() async throws {
        let base = try MdocPKI()
        // Valid 600 days, no issuerAltName, no CRL distribution point, no key identifiers.
        let loose = try signer(
            base, notAfter: Date(timeIntervalSince1970: 1_690_000_000 + 600 * 86_400),
            extensions: [
                try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
                try Certificate.Extension(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])]), critical: true),
            ])
        let strict = try await verify(loose)
        let profile = try #require(strict.check(.mdocIssuerCertificateProfile))
        #expect(profile.status == .failed)
        for rule in [
            "valid for 600 days", "no issuerAltName", "no CRL distribution point", "no subject key identifier", "no authority key identifier",
        ] {
            #expect(profile.message.contains(rule), "\(rule)")
        }
        let inApp = try await verify(loose, policy: .appleInApp)
        #expect(inApp.check(.mdocIssuerCertificateProfile)?.status == .passed)
        #expect(inApp.warnings.contains { $0.code == "certificateProfileWarning" && $0.message.contains("600 days") })
    }

    /// Table B.3 and B.1, the rest. The rules Apple's own sample breaks (the DS's keyUsage and
    /// extendedKeyUsage not critical, the IACA without pathLenConstraint 0 or a CRL distribution
    /// point) fail under the strict and passport policies and warn in-app; the others (a DS
    /// commonName, its stateOrProvinceName equal to the IACA's, the IACA's cRLSign) fail everywhere.
    @Test func tableB3AndB1TheRest() async throws {
        let warnedRules: [(String, (inout MdocPKI.Options) -> Void)] = [
            ("the document signer's key usage is not marked critical", { $0.dsKeyUsageCritical = false }),
            ("the document signer's extended key usage is not marked critical", { $0.dsEKUCritical = false }),
            ("the IACA's basicConstraints pathLenConstraint is absent; Table B.1 requires 0", { $0.iacaPathLength = nil }),
            ("the IACA's basicConstraints pathLenConstraint is 2", { $0.iacaPathLength = 2 }),
            ("the IACA has no CRL distribution point", { $0.iacaHasCRLDistributionPoint = false }),
        ]
        for (rule, change) in warnedRules {
            var options = MdocPKI.Options()
            change(&options)
            let pki = try MdocPKI(options)
            // The passport rules for this mDL: its docType alone would be refused before the profile is read.
            var passport = MdocVerificationPolicy.passport
            passport.acceptedDocTypes = nil
            for policy in [MdocVerificationPolicy.iso18013Strict, passport] {
                let profile = try #require(try await verify(pki, policy: policy).check(.mdocIssuerCertificateProfile))
                #expect(profile.status == .failed && profile.message.contains(rule), "\(rule): \(profile.message)")
            }
            let inApp = try await verify(pki, policy: .appleInApp)
            #expect(inApp.check(.mdocIssuerCertificateProfile)?.status == .passed, "\(rule)")
            #expect(inApp.check(.mdocIssuerCertificateProfile)?.details["profileWarnings"]?.contains(rule) == true, "\(rule)")
            #expect(inApp.verdict == .accepted, "\(rule)")
        }
        let failedRules: [(String, (inout MdocPKI.Options) -> Void)] = [
            ("the document signer's subject has no commonName", { $0.dsCommonName = nil }),
            (
                "the document signer's stateOrProvinceName differs from the IACA's",
                {
                    $0.dsState = "California"
                    $0.iacaState = "New York"
                }
            ),
            ("the document signer's stateOrProvinceName differs from the IACA's (which has none)", { $0.dsState = "California" }),
            ("the IACA's key usage lacks cRLSign", { $0.iacaHasCRLSign = false }),
        ]
        for (rule, change) in failedRules {
            var options = MdocPKI.Options()
            change(&options)
            let pki = try MdocPKI(options)
            for policy in [MdocVerificationPolicy.iso18013Strict, .appleInApp] {
                let report = try await verify(pki, policy: policy)
                let profile = try #require(report.check(.mdocIssuerCertificateProfile))
                #expect(profile.status == .failed && profile.message.contains(rule), "\(rule): \(profile.message)")
                #expect(report.verdict == .rejected)
            }
        }
        // The same state in both, or a state in the IACA only: passes.
        var same = MdocPKI.Options()
        same.dsState = "California"
        same.iacaState = "California"
        #expect(try await verify(try MdocPKI(same)).check(.mdocIssuerCertificateProfile)?.status == .passed)
        var iacaOnly = MdocPKI.Options()
        iacaOnly.iacaState = "California"
        #expect(try await verify(try MdocPKI(iacaOnly)).check(.mdocIssuerCertificateProfile)?.status == .passed)
    }

    /// An IACA made to order, and a document signer with the whole DS profile issued by it.
    func issuer(
        key: Certificate.PrivateKey, publicKey: Certificate.PublicKey, algorithm: Certificate.SignatureAlgorithm, years: Double = 10,
        altName: Bool = true, keyIdentifier: Bool = true
    ) throws -> (iaca: Certificate, ds: Certificate, dsKey: P256.Signing.PrivateKey) {
        let name = try DistinguishedName {
            CountryName("US")
            CommonName("Test IACA \(UUID().uuidString.prefix(8))")
        }
        let identifier = SubjectKeyIdentifier(hash: publicKey).keyIdentifier
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let iaca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey, notValidBefore: start,
            notValidAfter: start.addingTimeInterval(years * 365.25 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: algorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                if keyIdentifier { SubjectKeyIdentifier(keyIdentifier: identifier) }
                if altName { AnnexBExtensions.issuerAltName(email: "iaca@issuer.example") }
                AnnexBExtensions.crlDistributionPoint("https://issuer.example/iaca.crl")
            }, issuerPrivateKey: key)
        let dsKey = P256.Signing.PrivateKey()
        let ds = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(dsKey.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_690_000_000), notValidAfter: Date(timeIntervalSince1970: 1_690_000_000 + 400 * 86_400),
            issuer: name,
            subject: try DistinguishedName {
                CountryName("US")
                CommonName("Test DS")
            }, signatureAlgorithm: algorithm,
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                Critical(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])]))
                SubjectKeyIdentifier(hash: .init(dsKey.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: identifier)
                AnnexBExtensions.issuerAltName(email: "iaca@issuer.example")
                AnnexBExtensions.crlDistributionPoint("https://issuer.example/crl")
            }, issuerPrivateKey: key)
        return (iaca, ds, dsKey)
    }

    /// The IACA rules Apple's test issuer breaks: at most 20 years, an issuerAltName, a subject key
    /// identifier. Failures under the strict policy, each named; warnings in the in-app flow.
    @Test func aLooseIACAFailsStrictAndWarnsInApp() async throws {
        let key = P256.Signing.PrivateKey()
        let loose = try issuer(
            key: .init(key), publicKey: .init(key.publicKey), algorithm: .ecdsaWithSHA256, years: 25, altName: false, keyIdentifier: false)
        let pki = MdocPKI(iacaKey: key, iaca: loose.iaca, dsKey: loose.dsKey, ds: loose.ds)
        let strict = try await verify(pki)
        let profile = try #require(strict.check(.mdocIssuerCertificateProfile))
        #expect(profile.status == .failed && strict.verdict == .rejected)
        for rule in [
            "the IACA is valid for 25 years; Annex B allows at most 20", "the IACA has no issuerAltName", "the IACA has no subject key identifier",
        ] {
            #expect(profile.message.contains(rule), "\(rule): \(profile.message)")
        }
        let inApp = try await verify(pki, policy: .appleInApp)
        #expect(inApp.check(.mdocIssuerCertificateProfile)?.status == .passed)
        #expect(
            inApp.warnings.contains {
                $0.code == "certificateProfileWarning" && $0.message.contains("25 years") && $0.message.contains("no issuerAltName")
            })
        // 20 years exactly is allowed.
        let twenty = try issuer(key: .init(key), publicKey: .init(key.publicKey), algorithm: .ecdsaWithSHA256, years: 20)
        #expect(CertificateProfileCheck.extendedViolations(documentSigner: twenty.ds, iaca: twenty.iaca).isEmpty)
        #expect(CertificateProfileCheck.violations(documentSigner: twenty.ds, iaca: twenty.iaca).isEmpty)
    }

    /// Signature algorithms and keys outside ISO/IEC 18013-5's list fail under every policy: an RSA
    /// IACA (sha256WithRSAEncryption) is named twice, for its key and for its signatures.
    @Test func rsaIssuersFailUnderEveryPolicy() async throws {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let issued = try issuer(key: .init(rsa), publicKey: .init(rsa.publicKey), algorithm: .sha256WithRSAEncryption)
        let problems = CertificateProfileCheck.violations(documentSigner: issued.ds, iaca: issued.iaca)
        #expect(
            problems.contains(
                "the IACA's public key is an RSA key (RSA2048.PublicKey); Annex B allows ECDSA keys on P-256, P-384 or P-521 and Ed25519 keys"),
            "\(problems)")
        #expect(problems.contains { $0.hasPrefix("the IACA is signed with") && $0.contains("not ECDSA with SHA-256/384/512 or EdDSA") })
        #expect(problems.contains { $0.hasPrefix("the document signer is signed with") })
        let bytes = try MdocFixture().deviceResponse(
            pki: MdocPKI(iacaKey: P256.Signing.PrivateKey(), iaca: issued.iaca, dsKey: issued.dsKey, ds: issued.ds),
            deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        for policy in [MdocVerificationPolicy.iso18013Strict, .appleInApp] {
            let report = await MdocVerifier(trustStore: IACATrustStore(certificates: [issued.iaca]), policy: policy).verify(
                deviceResponse: bytes, transcript: transcript, context: .at(time)
            ).report
            #expect(report.check(.mdocIssuerChain)?.status == .passed, "\(report.failures.map(\.message))")
            #expect(report.check(.mdocIssuerCertificateProfile)?.status == .failed)
            #expect(report.check(.mdocIssuerCertificateProfile)?.message.contains("RSA key") == true)
            #expect(report.verdict == .rejected)
        }
    }

    /// The other curves the standard lists are allowed: a P-384 and a P-521 IACA signing with
    /// SHA-384 and SHA-512.
    @Test(arguments: [384, 521])
    func largerCurvesAreAllowed(bits: Int) throws {
        let issued: (iaca: Certificate, ds: Certificate, dsKey: P256.Signing.PrivateKey)
        if bits == 384 {
            let key = P384.Signing.PrivateKey()
            issued = try issuer(key: .init(key), publicKey: .init(key.publicKey), algorithm: .ecdsaWithSHA384)
        } else {
            let key = P521.Signing.PrivateKey()
            issued = try issuer(key: .init(key), publicKey: .init(key.publicKey), algorithm: .ecdsaWithSHA512)
        }
        #expect(CertificateProfileCheck.violations(documentSigner: issued.ds, iaca: issued.iaca) == [])
        #expect(CertificateProfileCheck.extendedViolations(documentSigner: issued.ds, iaca: issued.iaca) == [])
    }
}
