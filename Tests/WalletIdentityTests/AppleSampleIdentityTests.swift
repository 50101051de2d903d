import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport

@testable import WalletIdentity

private let sample = "mdoc/apple-verify-with-wallet-sample/sample/"
let sampleTime = RFC3339.parse("2022-04-01T00:00:00Z")!
let sampleMerchant = "PassKit_Identity_Test_Merchant_ID"
let sampleTeam = "PassKit_Identity_Test_Team_ID"

func sampleNonce() throws -> [UInt8] {
    let text = try TestVectors.text(sample + "session_transcript_parameters.txt")
    let line = text.split(separator: "\n").first { $0.hasPrefix("Nonce") }!
    return hex(String(line.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces))
}

func sampleKeyRing() throws -> IdentityKeyRing {
    var ring = IdentityKeyRing()
    try ring.load(path: TestVectors.path(sample + "merchant_encryption.key"))
    return ring
}

func sampleTrust() throws -> IACATrustStore {
    var store = IACATrustStore()
    try store.load(path: TestVectors.path(sample + "issuer_root.crt"))
    return store
}

@Suite struct AppleSampleIdentityTests {
    func verifier(merchant: String = sampleMerchant, team: String = sampleTeam, ring: IdentityKeyRing? = nil, policy: IdentityPolicy = .production)
        throws -> AppleIdentityVerifier
    {
        AppleIdentityVerifier(
            keyRing: try ring ?? sampleKeyRing(), merchantID: merchant, teamID: team, trustStore: try sampleTrust(), policy: policy,
            revocation: .off(because: "not under test"))
    }

    func envelope() throws -> [UInt8] { try TestVectors.hex(sample + "hpke_envelope.cbor") }

    @Test func sampleVerifiesEndToEnd() async throws {
        let result = try await verifier().verify(encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(sampleTime))
        let report = result.report
        #expect(report.verdict == .accepted, "\(report.failures.map(\.message))")
        for id: CheckID in [
            .identityEnvelopeStructure, .identityEnvelopeRecipientKey, .identityEnvelopeTranscript, .identityEnvelopeDecryption,
            .identityPlaintextStructure, .mdocIssuerSignature, .mdocIssuerChain, .mdocValueDigests, .mdocDeviceAuthentication,
        ] {
            #expect(report.check(id)?.status == .passed, "\(id)")
        }
        #expect(report.flow == "walletIdentity")
        #expect(!report.testOnly)
        let document = try #require(result.documents.first)
        #expect(document.element("org.iso.18013.5.1", "given_name")?.stringValue == "Jane")
        #expect(document.element("org.iso.18013.5.1", "age_in_years")?.integerValue == 42)
    }

    @Test(arguments: ["nonce", "merchant", "team"])
    func changedTranscriptInputsFailTheTranscriptCheck(_ what: String) async throws {
        var nonce = try sampleNonce()
        var merchant = sampleMerchant, team = sampleTeam
        switch what {
        case "nonce": nonce[0] ^= 1
        case "merchant": merchant += "x"
        default: team = "OTHERTEAM"
        }
        let report = try await verifier(merchant: merchant, team: team).verify(encryptedData: try envelope(), nonce: nonce, context: .at(sampleTime))
            .report
        #expect(report.verdict == .rejected)
        #expect(report.check(.identityEnvelopeTranscript)?.reason == "infoHashMismatch")
        #expect(report.check(.identityEnvelopeTranscript)?.message.contains("nonce, merchant identifier") == true)
        #expect(report.check(.identityEnvelopeDecryption)?.reason == .prerequisiteFailed)
        #expect(report.check(.mdocResponseStructure)?.status == .skipped)
    }

    @Test func wrongKeyFailsBeforeDecryption() async throws {
        let ring = IdentityKeyRing([P256.KeyAgreement.PrivateKey()])
        let report = try await verifier(ring: ring).verify(encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(sampleTime)).report
        #expect(report.check(.identityEnvelopeRecipientKey)?.reason == "noMatchingKey")
        #expect(report.check(.identityEnvelopeRecipientKey)?.message.contains("b2c00f06b2df6456") == true)
        #expect(report.check(.identityEnvelopeDecryption)?.status == .skipped)
        #expect(report.verdict == .rejected)
    }

    @Test func keyRotationPicksTheRightKey() async throws {
        var ring = IdentityKeyRing([P256.KeyAgreement.PrivateKey(), P256.KeyAgreement.PrivateKey()])
        try ring.load(path: TestVectors.path(sample + "merchant_encryption.key"))
        let report = try await verifier(ring: ring).verify(encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(sampleTime)).report
        #expect(report.verdict == .accepted)
        #expect(report.check(.identityEnvelopeRecipientKey)?.details["key"] == "merchant_encryption.key")
    }

    @Test func laterVerificationTimeFails() async throws {
        let report = try await verifier().verify(
            encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(RFC3339.parse("2023-06-01T00:00:00Z")!)
        ).report
        #expect(report.verdict == .rejected)
        #expect(report.check(.mdocValidity)?.reason == "expired")
    }

    /// Apple's sample licence expired on 2022-01-30 and is verified at 2022-04-01: a warning by
    /// default (the verdict stands), a failure when the request requires an unexpired document.
    @Test func theSamplesExpiredLicenceIsAWarningUnlessRequired() async throws {
        let result = try await verifier().verify(encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(sampleTime))
        let expiry = try #require(result.report.check(.identityDocumentExpiry))
        #expect(expiry.status == .failed)
        #expect(expiry.requirement == .advisory)
        #expect(expiry.reason == .documentExpired)
        #expect(expiry.details["expiryDate"] == "2022-01-30")
        #expect(result.report.verdict == .accepted)
        let required = try await verifier().verify(
            encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(sampleTime), requireUnexpired: true)
        #expect(required.report.check(.identityDocumentExpiry)?.requirement == .required)
        #expect(required.report.verdict == .rejected)
        // The day of expiry still counts as valid.
        let onTheDay = try await verifier().verify(
            encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(RFC3339.parse("2022-01-30T23:00:00Z")!), requireUnexpired: true)
        let passed = try #require(onTheDay.report.check(.identityDocumentExpiry))
        #expect(passed.status == .passed && passed.details == ["expiryDate": "2022-01-30"])
        #expect(passed.message == "The physical document is valid through 2022-01-30 (org.iso.18013.5.1/expiry_date).")
    }

    @Test func developerPolicyMarksTheReportTestOnly() async throws {
        let report = try await verifier(policy: .developer).verify(encryptedData: try envelope(), nonce: try sampleNonce(), context: .at(sampleTime))
            .report
        #expect(report.testOnly)
        #expect(report.policy.contains("developer"))
    }

    @Test func requestMatchingAndClaims() async throws {
        let request = IdentityRequestDescriptor(
            document: .driversLicense,
            elements: [
                .init(.givenName, intentToStore: .willNotStore), .init(.familyName, intentToStore: .mayStoreDays(30)),
                .init(.age, atLeast: 21, intentToStore: .willNotStore), .init(.portrait, intentToStore: .mayStore),
                .init(.dateOfBirth, intentToStore: .willNotStore), .init(.documentNumber, intentToStore: .willNotStore),
                .init(.address, intentToStore: .willNotStore), .init(.issuingAuthority, intentToStore: .willNotStore),
                .init(.documentIssueDate, intentToStore: .willNotStore), .init(.documentExpirationDate, intentToStore: .willNotStore),
                .init(.drivingPrivileges, intentToStore: .willNotStore),
            ])
        let result = try await verifier().verify(encryptedData: try envelope(), nonce: try sampleNonce(), request: request, context: .at(sampleTime))
        // Under Apple's descriptor table every element of the sample answers one of these requested
        // elements (the AAMVA truncation and aka names come with givenName and familyName,
        // issuing_country, issuing_jurisdiction and un_distinguishing_sign with issuingAuthority).
        let elements = try #require(result.report.check(.identityRequestElements))
        #expect(elements.status == .passed, "\(elements.message)")
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        #expect(
            result.claims?.claim(.givenName)?.values.map(\.source) == [
                "org.iso.18013.5.1/given_name", "org.iso.18013.5.1.aamva/given_name_truncation", "org.iso.18013.5.1.aamva/aka_given_name",
            ])
        // Without address in the request, the sample's resident_* elements are unrequested.
        let withoutAddress = IdentityRequestDescriptor(document: .driversLicense, elements: request.elements.filter { $0.element != .address })
        let narrower = try await verifier().verify(
            encryptedData: try envelope(), nonce: try sampleNonce(), request: withoutAddress, context: .at(sampleTime))
        let unrequested = try #require(narrower.report.check(.identityRequestElements))
        #expect(unrequested.reason == "unrequestedElement")
        #expect(
            unrequested.details["unrequested"]?.split(separator: ",").sorted() == [
                "org.iso.18013.5.1/resident_address", "org.iso.18013.5.1/resident_city", "org.iso.18013.5.1/resident_country",
                "org.iso.18013.5.1/resident_postal_code", "org.iso.18013.5.1/resident_state",
            ])
        #expect(narrower.report.verdict == .rejected)
        let claims = try #require(result.claims)
        #expect(claims.givenName == "Jane")
        #expect(claims.familyName == "Doe")
        #expect(claims.dateOfBirth?.description == "1976-04-01")
        #expect(claims.portrait?.count == 1042)
        #expect(claims.ageAtLeast?.value == true)
        #expect(claims.ageAtLeast?.source == "age_in_years")
        #expect(claims.claim(.familyName)?.intentToStore == .mayStoreDays(30))
        #expect(claims.json.contains(#""ageAtLeast":{"age":21,"value":true,"source":"age_in_years""#))
        #expect(!claims.description.contains("Jane"))
        #expect(result.report.check(.identityRequestAge)?.status == .passed)
    }
}
