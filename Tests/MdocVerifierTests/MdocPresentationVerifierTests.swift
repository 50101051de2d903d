import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

/// The composition every flow runs after decryption: its order, and the physical document's expiry
/// checked for every document (scoped when there are several).
@Suite struct MdocPresentationVerifierTests {
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
    let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://verifier.example")

    func twoDocuments(pki: MdocPKI, expiries: [String]) throws -> [UInt8] {
        let documents = try expiries.map { expiry in
            var fixture = MdocFixture()
            fixture.elements.append(.init(MdocFixture.isoNameSpace, "expiry_date", .tagged(1004, .text(expiry))))
            return try fixture.document(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        }
        let node = try CBORNode.map(["version": .text("1.0"), "documents": .array(documents), "status": .unsigned(0)])
        return Array(node.encodedBytes)
    }

    @Test func everyDocumentsExpiryIsCheckedInItsScopeBeforeTheRequestAndRevocation() async throws {
        let pki = try MdocPKI()
        let composition = MdocPresentationVerifier(
            mdocVerifier: MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca])), revocation: .off(because: "not under test"))
        let expectations = MdocPresentationExpectations(documentExpiry: .advisory)
        var runner = CheckRunner(
            policy: expectations.requirements(MdocVerificationPolicy.iso18013Strict.requirements), context: .at(time))
        let documents = await composition.verify(
            deviceResponse: try twoDocuments(pki: pki, expiries: ["2030-01-01", "2020-01-01"]), transcript: transcript, readerKey: nil,
            expectations: expectations, runner: &runner, flow: "mdoc")
        let report = runner.report(flow: "mdoc")
        #expect(documents.count == 2)
        #expect(report.check(.identityDocumentExpiry, scope: "document[0]")?.status == .passed)
        #expect(report.check(.identityDocumentExpiry, scope: "document[1]")?.reason == .documentExpired)
        #expect(report.check(.identityDocumentExpiry, scope: "document[1]")?.requirement == .advisory)
        // Expiry after the mdoc checks, revocation last.
        let ids = report.checks.map(\.id)
        let lastMdoc = try #require(ids.lastIndex(of: .mdocDeviceKeyAuthorizations))
        let firstExpiry = try #require(ids.firstIndex(of: .identityDocumentExpiry))
        let firstRevocation = try #require(ids.firstIndex(of: .mdocRevocationList))
        #expect(lastMdoc < firstExpiry && firstExpiry < firstRevocation, "\(ids)")
    }

    @Test(arguments: [MdocPresentationExpectations.DocumentExpiry.notChecked, .advisory, .required])
    func theVerifiersPreparedRequirementsAreThoseTheExpectationsGive(expiry: MdocPresentationExpectations.DocumentExpiry) {
        let expectations = MdocPresentationExpectations(documentExpiry: expiry)
        var developer = MdocVerificationPolicy.iso18013Strict
        developer.requirements = VerificationPolicy(
            name: "test/developer@1", defaultRequirement: .advisory, overrides: [.mdocIssuerChain: .disabled], testOnly: true)
        let strict = MdocVerifier(trustStore: IACATrustStore())
        // A verifier of another policy sharing the first one's caches prepares its own policy's.
        let shared = MdocVerifier(sharing: strict, policy: developer)
        // One narrowed for a response keeps the requirements, and shares what was prepared for them.
        var narrowedPolicy = strict.policy
        narrowedPolicy.acceptedDocTypes = ["org.iso.18013.5.1.mDL"]
        let narrowed = MdocVerifier(sharing: strict, policy: narrowedPolicy)
        for verifier in [strict, shared, narrowed] {
            let prepared = verifier.requirements(for: expectations)
            #expect(prepared == expectations.requirements(verifier.policy.requirements))
            for id in [CheckID.identityDocumentExpiry, .mdocIssuerChain, .mdocValueDigests] {
                #expect(prepared.requirement(for: id) == expectations.requirements(verifier.policy.requirements).requirement(for: id))
            }
        }
        #expect(shared.requirements(for: expectations).name == "test/developer@1")
        #expect(shared.requirements(for: expectations).requirement(for: .mdocIssuerChain) == .disabled)
        let expected: Requirement? = [.advisory: .advisory, .required: .required][expiry]
        if let expected { #expect(strict.requirements(for: expectations).requirement(for: .identityDocumentExpiry) == expected) }
    }

    @Test func aResponseThatDoesNotDecodeFailsTheStructureOnceAndNothingElseRuns() async throws {
        let composition = MdocPresentationVerifier(
            mdocVerifier: MdocVerifier(trustStore: IACATrustStore()), revocation: .off(because: "not under test"))
        var runner = CheckRunner(policy: MdocVerificationPolicy.iso18013Strict.requirements, context: .at(time))
        let documents = await composition.verify(
            deviceResponse: [0xa0], transcript: transcript, readerKey: nil, expectations: MdocPresentationExpectations(documentExpiry: .required),
            runner: &runner, flow: "mdoc", advice: "Try again.")
        #expect(documents.isEmpty)
        #expect(runner.results.map(\.id) == [.mdocResponseStructure])
        #expect(runner.results.first?.status == .failed)
        #expect(runner.results.first?.message.hasSuffix(" Try again.") == true)
    }
}
