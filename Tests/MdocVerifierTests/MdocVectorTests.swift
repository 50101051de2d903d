import Crypto
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

func date(_ text: String) -> Date { RFC3339.parse(text)! }

func trustStore(_ files: String...) throws -> IACATrustStore {
    var store = IACATrustStore()
    for file in files { try store.load(path: TestVectors.path(file)) }
    return store
}

private let apple = "mdoc/apple-verify-with-wallet-sample/sample/"

/// The sample's DeviceResponse bytes, as received inside the decrypted topics map.
func appleSampleDeviceResponse() throws -> [UInt8] {
    let topics = try CBORDecoder.decode(try TestVectors.hex(apple + "plaintext_topics.cbor"))
    return Array(try topics.map().required("identity").encodedBytes)
}

func appleSampleTranscript() throws -> SessionTranscript {
    try SessionTranscript(bytes: try TestVectors.hex(apple + "session_transcript.txt"))
}

@Suite struct AppleSampleMdocTests {
    let verifier = MdocVerifier(trustStore: try! trustStore(apple + "issuer_root.crt"), policy: .appleInApp)

    @Test func verifiesEndToEndUnderTheInAppPolicy() async throws {
        let result = await verifier.verify(
            deviceResponse: try appleSampleDeviceResponse(), transcript: try appleSampleTranscript(), context: .at(date("2022-04-01T00:00:00Z")))
        let report = result.report
        for check in report.checks { #expect(check.status == .passed || check.reason == "countryNameAbsent", "\(check.id): \(check.message)") }
        #expect(report.verdict == .accepted)
        #expect(report.warnings.contains { $0.code == "countryNameAbsent" })
        #expect(report.check(.mdocDeviceAuthentication)?.details["mechanism"] == "deviceSignature")
        let document = try #require(result.documents.first)
        #expect(document.docType == "org.iso.18013.5.1.mDL")
        let ns = "org.iso.18013.5.1"
        #expect(document.element(ns, "given_name")?.stringValue == "Jane")
        #expect(document.element(ns, "family_name")?.stringValue == "Doe")
        #expect(document.element(ns, "age_in_years")?.integerValue == 42)
        #expect(document.element(ns, "birth_date")?.fullDateValue?.description == "1976-04-01")
        #expect(document.element(ns, "expiry_date")?.json == "\"2022-01-30\"")
        #expect(document.element(ns, "document_number")?.stringValue == "TEST1234567")
        #expect(document.element(ns, "issuing_country")?.stringValue == "")
        #expect(document.element(ns, "portrait")?.bytesValue?.count == 1042)
        #expect(document.element(ns, "portrait")?.bytesValue?.starts(with: [0xff, 0xd8]) == true)
        let privileges = try #require(document.element(ns, "driving_privileges"))
        #expect(privileges.json.contains(#""vehicle_category_code":"A""#))
        #expect(privileges.json.contains(#""expiry_date":"2122-01-30""#))
        let aamva = "org.iso.18013.5.1.aamva"
        #expect(document.element(aamva, "given_name_truncation")?.stringValue == "N")
        #expect(document.element(aamva, "aka_family_name")?.stringValue == "Doe")
        #expect(document.element(aamva, "domestic_driving_privileges")?.json.contains("Corr. Lens") == true)
        #expect(!document.description.contains("Jane"))
    }

    @Test func strictISOPolicyFailsTheMissingCountryName() async throws {
        let strict = MdocVerifier(trustStore: verifier.trustStore, policy: .iso18013Strict)
        let result = await strict.verify(
            deviceResponse: try appleSampleDeviceResponse(), transcript: try appleSampleTranscript(), context: .at(date("2022-04-01T00:00:00Z")))
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.mdocIssuerCountry)?.reason == "countryNameMissing")
        // The sample discloses issuing_country, which cannot be compared with the IACA's missing
        // countryName either.
        #expect(result.report.check(.mdocIssuingCountryElement)?.reason == "countryNameMissing")
        // And Apple's test issuer breaks Annex B's validity and issuerAltName rules, which the strict
        // policy requires (the in-app policy reports them as warnings).
        #expect(result.report.failures.map(\.id) == [.mdocIssuerCertificateProfile, .mdocIssuerCountry, .mdocIssuingCountryElement])
        let profile = try #require(result.report.check(.mdocIssuerCertificateProfile))
        #expect(profile.message.contains("457") && profile.message.contains("issuerAltName"))
        let inApp = await verifier.verify(
            deviceResponse: try appleSampleDeviceResponse(), transcript: try appleSampleTranscript(), context: .at(date("2022-04-01T00:00:00Z")))
        #expect(inApp.report.check(.mdocIssuerCertificateProfile)?.status == .passed)
        #expect(inApp.report.check(.mdocIssuerCertificateProfile)?.details["profileWarnings"]?.contains("457") == true)
        #expect(inApp.report.warnings.contains { $0.code == "certificateProfileWarning" })
        // Table B.3/B.1 rules the sample breaks too: warnings in-app, failures under the strict policy.
        for rule in [
            "the document signer's key usage is not marked critical", "the document signer's extended key usage is not marked critical",
            "pathLenConstraint is absent", "the IACA has no CRL distribution point",
        ] {
            #expect(inApp.report.check(.mdocIssuerCertificateProfile)?.details["profileWarnings"]?.contains(rule) == true, "\(rule)")
            #expect(profile.message.contains(rule), "\(rule)")
        }
        #expect(inApp.report.verdict == .accepted)
        // The MSO was signed (2022-03-31T22:48:31Z) inside the signer's validity (from 20:36:14Z that day).
        #expect(inApp.report.check(.mdocValidity)?.status == .passed)
    }

    @Test func laterVerificationTimeExpiresTheMSO() async throws {
        let result = await verifier.verify(
            deviceResponse: try appleSampleDeviceResponse(), transcript: try appleSampleTranscript(), context: .at(date("2023-04-01T00:00:00Z")))
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.mdocValidity)?.reason == "expired")
        #expect(result.report.check(.mdocIssuerChain)?.status == .passed)
        #expect(result.report.check(.mdocIssuerSignature)?.status == .passed)
    }

    @Test func untrustedRootFailsTheChainOnly() async throws {
        let other = MdocVerifier(trustStore: try trustStore(apple + "merchant_encryption.crt"), policy: .appleInApp)
        let result = await other.verify(
            deviceResponse: try appleSampleDeviceResponse(), transcript: try appleSampleTranscript(), context: .at(date("2022-04-01T00:00:00Z")))
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.mdocIssuerChain)?.reason == "untrustedIssuer")
        #expect(result.report.check(.mdocIssuerCertificateProfile)?.reason == .prerequisiteFailed)
        // Independent checks still ran.
        #expect(result.report.check(.mdocIssuerSignature)?.status == .passed)
        #expect(result.report.check(.mdocValueDigests)?.status == .passed)
        #expect(result.report.check(.mdocDeviceAuthentication)?.status == .passed)
    }

    @Test func aChangedTranscriptFailsDeviceAuthentication() async throws {
        var bytes = try TestVectors.hex(apple + "session_transcript.txt")
        bytes[40] ^= 0x01  // inside the nonce
        let result = await verifier.verify(
            deviceResponse: try appleSampleDeviceResponse(), transcript: try SessionTranscript(bytes: bytes),
            context: .at(date("2022-04-01T00:00:00Z")))
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.mdocDeviceAuthentication)?.reason == "deviceSignatureInvalid")
    }

    @Test func transcriptBuilderMatchesApplesTranscript() throws {
        let params = try TestVectors.text(apple + "session_transcript_parameters.txt")
        func value(_ key: String) -> String {
            params.split(separator: "\n").first { $0.hasPrefix(key) }!.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
        }
        let built = SessionTranscript.appleInApp(
            nonce: hex(value("Nonce")), merchantID: value("Merchant ID"), teamID: value("Team ID"),
            recipientKeyHash: hex(value("Encryption Key Hash")))
        #expect(built.bytes == (try TestVectors.hex(apple + "session_transcript.txt")))
        #expect(
            Hex.encode(Array(SHA256.hash(data: built.bytes)))
                == (try TestVectors.text(apple + "info_hash.txt")).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func validatedChainsAreCachedAndStillCheckedAgainstTime() async throws {
        let transcript = try appleSampleTranscript()
        let response = try appleSampleDeviceResponse()
        let first = await verifier.verify(deviceResponse: response, transcript: transcript, context: .at(date("2022-04-01T00:00:00Z")))
        let second = await verifier.verify(deviceResponse: response, transcript: transcript, context: .at(date("2022-04-01T00:00:01Z")))
        #expect(first.report.verdict == .accepted)
        #expect(second.report.verdict == .accepted)
        // Before the DS was issued: the cache must not answer.
        let early = await verifier.verify(deviceResponse: response, transcript: transcript, context: .at(date("2022-03-01T00:00:00Z")))
        #expect(early.report.check(.mdocIssuerChain)?.reason == "certificateNotYetValid")
    }
}

private let annexD = "mdoc/iso18013-5-annex-d/"

@Suite struct AnnexDTests {
    func readerKey() throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: try TestVectors.hex(annexD + "ereader_key_private_d.hex"))
    }

    var verifier: MdocVerifier { MdocVerifier(trustStore: try! trustStore(annexD + "document_signer.pem"), policy: .iso18013Strict) }

    @Test func deviceMacVerifiesWithTheReaderKey() async throws {
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(annexD + "device_response.cbor"),
            transcript: try SessionTranscript(bytes: try TestVectors.data(annexD + "session_transcript_bytes.cbor")),
            readerKey: try readerKey(), context: .at(date("2021-01-01T00:00:00Z")))
        let report = result.report
        #expect(report.check(.mdocIssuerSignature)?.status == .passed)
        #expect(report.check(.mdocValueDigests)?.status == .passed)
        #expect(report.check(.mdocValidity)?.status == .passed)
        #expect(report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(report.check(.mdocDeviceAuthentication)?.details["mechanism"] == "deviceMac")
        // The DS is trusted directly (the utopia IACA is not published with the vector).
        #expect(report.check(.mdocIssuerChain)?.status == .passed)
        #expect(report.check(.mdocIssuerCountry)?.status == .passed)
        // No IACA: the message must not claim a comparison that did not happen.
        #expect(report.check(.mdocIssuerCountry)?.message.contains("pinned document signer") == true)
        #expect(report.check(.mdocIssuerCountry)?.message.contains("in both") == false)
        #expect(report.check(.mdocIssuerCountry)?.details["country"] == "US")
        #expect(report.verdict == .accepted, "\(report.failures.map(\.message))")
        let document = try #require(result.documents.first)
        #expect(document.element("org.iso.18013.5.1", "family_name")?.stringValue == "Doe")
        #expect(document.element("org.iso.18013.5.1", "portrait")?.bytesValue?.count == 1042)
    }

    @Test func withoutTheReaderKeyTheMacCannotBeChecked() async throws {
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(annexD + "device_response.cbor"),
            transcript: try SessionTranscript(bytes: try TestVectors.data(annexD + "session_transcript_bytes.cbor")),
            context: .at(date("2021-01-01T00:00:00Z")))
        let check = try #require(result.report.check(.mdocDeviceAuthentication))
        #expect(check.status == .error)
        #expect(check.reason == "readerKeyRequired")
        #expect(check.message.contains("reader key required"))
        #expect(result.report.verdict == .indeterminate)
    }

    @Test func todayTheMSOAndDSHaveExpired() async throws {
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(annexD + "device_response.cbor"),
            transcript: try SessionTranscript(bytes: try TestVectors.data(annexD + "session_transcript_bytes.cbor")),
            readerKey: try readerKey(), context: .at(date("2026-11-21T00:00:00Z")))
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.mdocIssuerChain)?.reason == "certificateExpired")
        #expect(result.report.check(.mdocValidity)?.reason == "expired")
    }

    @Test func draftVariantMacMustFail() async throws {
        let bytes = try TestVectors.data("mdoc/iso18013-5-annex-d-draft-variant/device_response.cbor")
        // Trust its own DS, taken from x5chain.
        let response = try DeviceResponse(cborBytes: bytes)
        let der = try response.documents[0].issuerSigned.issuerAuth.headers.x5chain()[0]
        let pinned = MdocVerifier(trustStore: IACATrustStore(certificates: [try Certificate(derEncoded: der)]), policy: .iso18013Strict)
        let result = await pinned.verify(
            deviceResponse: bytes, transcript: try SessionTranscript(bytes: try TestVectors.data(annexD + "session_transcript_bytes.cbor")),
            readerKey: try readerKey(), context: .at(date("2021-01-01T00:00:00Z")))
        #expect(result.report.check(.mdocIssuerSignature)?.status == .passed)
        #expect(result.report.check(.mdocValueDigests)?.status == .passed)
        #expect(result.report.check(.mdocDeviceAuthentication)?.reason == "deviceMacInvalid")
        #expect(result.report.verdict == .rejected)
    }
}

private let auth0 = "mdoc/auth0-mdl-oid4vp-draft/"

@Suite struct Auth0ExampleTests {
    func verify(_ example: Int) async throws -> MdocVerificationResult {
        let verifier = MdocVerifier(trustStore: try trustStore(auth0 + "issuer.pem"), policy: .appleInApp)
        return await verifier.verify(
            deviceResponse: try TestVectors.data(auth0 + "example\(example).device_response.cbor"),
            transcript: try SessionTranscript(bytes: try TestVectors.data(auth0 + "example\(example).session_transcript_bytes.cbor")),
            context: .at(date("2024-01-01T00:00:00Z")))
    }

    @Test(arguments: [1, 2, 4])
    func validExamplesVerifyIssuerDataAndDevice(_ example: Int) async throws {
        let report = try await verify(example).report
        #expect(report.check(.mdocIssuerSignature)?.status == .passed)
        #expect(report.check(.mdocValueDigests)?.status == .passed)
        #expect(report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(report.check(.mdocValidity)?.status == .passed)
        #expect(report.check(.mdocIssuerChain)?.status == .passed)
    }

    @Test func example1Elements() async throws {
        let result = try await verify(1)
        // Whatever the verdict (this test is about the decoded elements): the diagnostics accessor.
        let document = try #require(result.documentsRegardlessOfVerdict.first)
        #expect(document.element("org.iso.18013.5.1", "family_name")?.stringValue == "Smith")
        #expect(document.element("org.iso.18013.5.1", "given_name")?.stringValue == "John")
        #expect(document.issuerSigned.reduce(0) { $0 + $1.elements.count } == 12)
    }

    @Test func example3DigestMismatchIsNamed() async throws {
        let report = try await verify(3).report
        let digests = try #require(report.check(.mdocValueDigests))
        #expect(digests.status == .failed)
        #expect(digests.reason == "digestMismatch")
        #expect(digests.details["mismatched"] == "org.iso.18013.5.1/family_name")
        #expect(report.check(.mdocIssuerSignature)?.status == .passed)
        #expect(report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(report.verdict == .rejected)
    }

    @Test func example4CarriesDeviceSignedElements() async throws {
        let result = try await verify(4)
        let document = try #require(result.documentsRegardlessOfVerdict.first)
        let wallet = try #require(document.deviceSigned.first { $0.name == "org.iso.wallet.mDL" })
        #expect(wallet["deviceName"]?.stringValue == "mDL Super Wallet")
        #expect(wallet["version"]?.integerValue == 1)
        // Its MSO carries no keyAuthorizations, so its device key is authorized for no element
        // (ISO/IEC 18013-5 §9.1.2.4): the device-signed elements fail; signatures and digests pass.
        let authorizations = try #require(result.report.check(.mdocDeviceKeyAuthorizations))
        #expect(authorizations.status == .failed)
        #expect(authorizations.reason == "unauthorizedDeviceSignedElement")
        for passing in [CheckID.mdocIssuerSignature, .mdocValueDigests, .mdocDeviceAuthentication] {
            #expect(result.report.check(passing)?.status == .passed, "\(passing)")
        }
    }
}

private let owf = "mdoc/owf-mdoc-ts-examples/"

@Suite struct HandoverTranscriptTests {
    @Test func googleDigitalCredentialsDraft24() async throws {
        let origin = "https://ellis-occurrence-ac-smoking.trycloudflare.com"
        let built = SessionTranscript.openID4VPDigitalCredentialsDraft24(origin: origin, nonce: "UwQek7MemM55VM2Lc7UPPsdsxa-vejebSUo75B_G7vk")
        #expect(built.bytes == (try TestVectors.data(owf + "google/session_transcript.cbor")))
        let verifier = MdocVerifier(trustStore: try trustStore(owf + "google/signingCertificate.pem"), policy: .appleInApp)
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(owf + "google/device_response.cbor"), transcript: built, context: .at(date("2025-02-20T00:00:00Z")))
        #expect(result.report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(result.report.check(.mdocIssuerSignature)?.status == .passed)
        #expect(result.report.check(.mdocValueDigests)?.status == .passed)
    }

    @Test func franceOID4VPDraft18() async throws {
        let built = SessionTranscript.oid4vpDraft18(
            clientID: "example.com", responseURI: "https://example.com/12345/response", nonce: "abcdefgh1234567890", mdocGeneratedNonce: "")
        #expect(built.bytes == (try TestVectors.data(owf + "france/session_transcript.cbor")))
        let verifier = MdocVerifier(trustStore: try trustStore(owf + "france/issuerCertificate.pem"), policy: .appleInApp)
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(owf + "france/device_response.cbor"), transcript: built, context: .at(date("2021-09-25T00:00:00Z")))
        #expect(result.report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(result.report.check(.mdocValueDigests)?.status == .passed)
    }

    @Test func ubiqueOID4VPDraft18() async throws {
        let built = SessionTranscript.oid4vpDraft18(
            clientID: "Cq1anPb8vZU5j5C0d7hcsbuJLBpIawUJIDQRi2Ebwb4",
            responseURI: "http://localhost:4000/api/presentation_request/dc8999df-d6ea-4c84-9985-37a8b81a82ec/callback",
            nonce: "abcdefg", mdocGeneratedNonce: "123456")
        #expect(built.bytes == (try TestVectors.data(owf + "ubique/session_transcript.cbor")))
        // Its DS certificate has a 32-byte serial number (RFC 5280 allows 20 octets): swift-certificates refuses it, so
        // the issuer checks fail with a clear reason, while the device signature over the transcript verifies.
        #expect(throws: (any Error).self) { try trustStore(owf + "ubique/issuerCertificate.pem") }
        let verifier = MdocVerifier(trustStore: try trustStore(apple + "issuer_root.crt"), policy: .appleInApp)
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(owf + "ubique/device_response.cbor"), transcript: built, context: .at(date("2025-02-01T00:00:00Z")))
        #expect(result.report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(result.report.check(.mdocValidity)?.status == .passed)
        #expect(result.report.check(.mdocIssuerSignature)?.reason == "invalidCertificate")
        // The chain is built only after the issuer signature verified with the signer's key.
        #expect(result.report.check(.mdocIssuerChain)?.reason == .prerequisiteFailed)
        #expect(result.report.verdict == .rejected)
    }

    @Test func animoOpenID4VP1UsesTheSuppliedTranscript() async throws {
        // Parameters of the upstream test (mdoc-ts tests/examples/animo-mdoc-05/verify.test.ts).
        let transcript = SessionTranscript.openID4VP(
            clientID: "x509_san_dns:playground.animo.id", nonce: "LMGPB6k--THpBUSkEBvLxmdMIi3Ee1fjHXXUUzBVa04",
            jwkThumbprint: hex("61a29f269176244d397cae26f7f80ab196bffcb65fe3052b540c78073dab7c1e"),
            responseURI:
                "https://playground.animo.id/oid4vp/8caaebcc-d48c-471b-86b0-a534e15c4774/authorize?session=6c115dbc-1364-4e9f-a325-173eeec01a5a")
        #expect(transcript.bytes == (try TestVectors.data(owf + "animo-mdoc-05/session_transcript.cbor")))
        let verifier = MdocVerifier(trustStore: try trustStore(owf + "animo-mdoc-05/rootCertificate.pem"), policy: .appleInApp)
        let result = await verifier.verify(
            deviceResponse: try TestVectors.data(owf + "animo-mdoc-05/device_response.cbor"), transcript: transcript,
            context: .at(date("2026-01-12T00:00:00Z")))
        #expect(result.report.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(result.report.check(.mdocIssuerChain)?.status == .passed)
        #expect(result.report.check(.mdocValueDigests)?.status == .passed)
        #expect(result.documents.first?.docType == "eu.europa.ec.eudi.pid.1")
    }

    @Test func dcapiAnnexC() throws {
        let dir = "mdoc/dcapi-annex-c-chrome-android-jmandel/request/"
        let info = try TestVectors.text(dir + "encryption-info.b64u").trimmingCharacters(in: .whitespacesAndNewlines)
        let built = SessionTranscript.dcapi(encryptionInfoBase64URL: info, origin: "http://127.0.0.1:3010")
        #expect(built.bytes == (try TestVectors.data(dir + "session-transcript.cbor")))
        let wrongOrigin = SessionTranscript.dcapi(encryptionInfoBase64URL: info, origin: "https://127.0.0.1:3010")
        #expect(wrongOrigin.bytes != built.bytes)
    }

    @Test func taggedAndBareTranscriptsGiveTheSameDeviceAuthentication() throws {
        let tagged = try SessionTranscript(bytes: try TestVectors.data(annexD + "session_transcript_bytes.cbor"))
        let bare = try SessionTranscript(bytes: tagged.bytes)
        #expect(tagged.bytes == bare.bytes)
        #expect(tagged.taggedBytes == (try TestVectors.data(annexD + "session_transcript_bytes.cbor")))
    }
}

private let profile = "mdoc/isomdl-cert-profile/"

@Suite struct CertificateProfileVectorTests {
    func cert(_ name: String) throws -> Certificate { try TestCertificates.certificate(pemFile: profile + name) }

    @Test func goodDocumentSignerFollowsTheProfile() throws {
        #expect(
            CertificateProfileCheck.violations(documentSigner: try cert("isomdl_iaca_signer.pem"), iaca: try cert("isomdl_iaca_root_cert.pem"))
                .isEmpty)
        // Table B.3 whole: validity, issuerAltName, CRL distribution point, key identifiers.
        #expect(
            CertificateProfileCheck.extendedViolations(
                documentSigner: try cert("isomdl_iaca_signer.pem"), iaca: try cert("isomdl_iaca_root_cert.pem")
            ).isEmpty)
    }

    @Test func negativeSerialNumberIsRefused() throws {
        // RFC 5280 §4.1.2.2: serial numbers are positive. The Multipaz P-384 DS has a negative one.
        #expect(throws: (any Error).self) { try cert("owf_multipaz_ds_p384.pem") }
        #expect(throws: Never.self) { try cert("owf_multipaz_iaca_p384.pem") }
    }

    @Test func documentSignerMarkedAsCAFails() throws {
        let problems = CertificateProfileCheck.violations(
            documentSigner: try cert("isomdl_incorrect_iaca_signer.pem"), iaca: try cert("isomdl_iaca_root_cert.pem"))
        #expect(problems.contains { $0.contains("marked as a CA") })
    }

    @Test func documentSignerBelowAnIntermediateFails() throws {
        let problems = CertificateProfileCheck.violations(
            documentSigner: try cert("isomdl_iaca_leaf_signer.pem"), iaca: try cert("isomdl_iaca_root_cert.pem"))
        #expect(problems.contains { $0.contains("issued directly by the IACA") })
    }

    @Test func intermediateIsNotAValidIACA() throws {
        let problems = CertificateProfileCheck.violations(
            documentSigner: try cert("isomdl_iaca_leaf_signer.pem"), iaca: try cert("isomdl_iaca_intermediate.pem"))
        #expect(problems.contains { $0.contains("keyCertSign") })
    }

    @Test func fullChainThroughTheVerifier() async throws {
        // The good signer chains to the root at 2024-01-01; the leaf under the intermediate must fail the profile.
        let roots = IACATrustStore(certificates: [try cert("isomdl_iaca_root_cert.pem")])
        for (leaf, intermediates, expectPass) in [
            ("isomdl_iaca_signer.pem", [String](), true), ("isomdl_iaca_leaf_signer.pem", ["isomdl_iaca_intermediate.pem"], false),
        ] {
            let chain = [try cert(leaf)] + (try intermediates.map(cert))
            let problems = CertificateProfileCheck.violations(documentSigner: chain[0], iaca: try cert("isomdl_iaca_root_cert.pem"))
            #expect(problems.isEmpty == expectPass, "\(leaf): \(problems)")
            _ = roots
        }
    }
}

@Suite struct IssuerSignedOnlyAndTrustStoreTests {
    @Test func bdrIssuerSignedVerifiesIssuerData() throws {
        let bytes = try TestVectors.data("mdoc/owf-mdoc-ts-examples/bdr/issuer_signed.cbor")
        let issuerSigned = try IssuerSigned(cbor: try CBORDecoder.decode(bytes))
        let ds = try TestCertificates.certificate(pemFile: "mdoc/owf-mdoc-ts-examples/bdr/issuerCertificate.pem")
        #expect(try issuerSigned.issuerAuth.isValidSignature(key: try TestCertificates.cosePublicKey(ds)))
        let mso = try EmbeddedCBOR<MobileSecurityObject>(cbor: try CBORDecoder.decode(issuerSigned.issuerAuth.payload!)).value
        var count = 0
        for space in issuerSigned.nameSpaces {
            for item in space.items {
                let expected = try #require(mso.valueDigests[space.name]?[item.value.digestID])
                #expect(
                    Array(expected) == ValueDigestsCheck.digest(mso.digestAlgorithm, item.taggedBytes),
                    "\(space.name)/\(item.value.elementIdentifier)")
                count += 1
            }
        }
        // The vector README says 17 elements; the IssuerSigned holds 18 items, every one with a matching digest.
        #expect(count == 18)
        #expect(issuerSigned.nameSpaces.contains { $0.items.contains { $0.value.elementIdentifier == "age_over_21" } })
    }

    @Test func trustStoreLoadsDirectoriesAndDER() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(
            atPath: TestVectors.path("mdoc/iso18013-5-annex-d/document_signer.der"), toPath: directory.appendingPathComponent("ds.der").path)
        try FileManager.default.copyItem(
            atPath: TestVectors.path("mdoc/apple-verify-with-wallet-sample/sample/issuer_root.crt"),
            toPath: directory.appendingPathComponent("apple.crt").path)
        try Data("not a certificate".utf8).write(to: directory.appendingPathComponent("README.txt"))
        var store = IACATrustStore()
        try store.load(path: directory.path)
        #expect(store.anchors.count == 2)
        var scoped = IACATrustStore()
        try scoped.load(path: directory.path, docTypes: ["org.iso.23220.photoid.1"])
        #expect(scoped.roots(for: "org.iso.18013.5.1.mDL").isEmpty)
        #expect(scoped.roots(for: "org.iso.23220.photoid.1").count == 2)
        #expect(throws: TrustStoreError.self) { try store.load(path: directory.appendingPathComponent("README.txt").path) }
        #expect(throws: TrustStoreError.self) { try store.load(path: "/nonexistent") }
    }
}
