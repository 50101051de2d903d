import Crypto
import Foundation
import Mdoc
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport
import X509

@testable import MdocVerifier

/// Revocation-list and VICAL signers have profiles of their own: a certificate made for another mdoc
/// role (a document signer above all) signs neither; and a pinned document signer's list is trusted
/// only from a signer pinned beside it for the same issuer.
@Suite struct SignerProfileTests {
    @Test func aDocumentSignerCannotSignARevocationList() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        // The passport's own document signer (EKU 1.0.18013.5.1.2), which chains to the same IACA.
        let list = try s.identifierList([]).signed(key: s.pki.dsKey, x5chain: [s.pki.dsDER])
        let report = try await s.verify(response, lists: [list]).report
        let check = try #require(report.check(.mdocRevocationList))
        #expect(check.reason == "untrustedSigner")
        #expect(check.message.contains("not a list signer") && check.message.contains("1.0.18013.5.1.2 (document signer)"))
        #expect(report.verdict != .accepted)
        // The proper list signer still works.
        let good = try s.identifierList([]).signed(by: s.signer)
        #expect(try await s.verify(response, lists: [good]).report.verdict == .accepted)
    }

    @Test func aPinnedDocumentSignersListNeedsASignerPinnedForTheSameIssuer() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let list = try s.identifierList([]).signed(by: s.signer)
        // The document signer pinned, and the IACA also trusted for the docType: before, any root of
        // the docType vouched for the list; now only a signer pinned beside the document signer does.
        let pinnedAndRoot = IACATrustStore(certificates: [s.pki.ds, s.pki.iaca], docTypes: [PhotoIDFixture.docType])
        let report = try await s.verify(response, lists: [list], trustStore: pinnedAndRoot).report
        #expect(report.check(.mdocIssuerChain)?.details["pinned"] == "true")
        let check = try #require(report.check(.mdocRevocationList))
        #expect(check.reason == "untrustedSigner")
        #expect(check.message.contains("is pinned"))
        // A list signer pinned beside it, issued by the same issuer as the document signer? The
        // fixture's list signer is issued by a revocation CA, not by the document signer's issuer:
        // still refused. A list signer pinned with the same issuer passes.
        let sameIssuerSigner = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(s.signer.signerKey.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_600_000_000), notValidAfter: Date(timeIntervalSince1970: 2_000_000_000),
            issuer: s.pki.ds.issuer,
            subject: try DistinguishedName {
                CountryName("US")
                CommonName("Pinned List Signer")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(KeyUsage(digitalSignature: true)) },
            issuerPrivateKey: .init(s.pki.iacaKey))
        let der = RevocationSignerPKI.der(sameIssuerSigner)
        let pinnedList = try s.identifierList([]).signed(key: s.signer.signerKey, x5chain: [der])
        let both = IACATrustStore(certificates: [s.pki.ds, sameIssuerSigner], docTypes: [PhotoIDFixture.docType])
        let accepted = try await s.verify(response, lists: [pinnedList], trustStore: both).report
        #expect(accepted.check(.mdocRevocationList)?.status == .passed, "\(accepted.failures.map(\.message))")
    }

    @Test func aVICALSignedByADocumentSignerIsRefused() async throws {
        let pki = try MdocPKI()
        var vical = try VICALFixture()
        vical.entries = [.init(pki.iaca, docTypes: ["org.iso.18013.5.1.mDL"])]
        // Signed by a document signer that chains to an anchor the loader trusts.
        let bytes = try vical.signed(key: pki.dsKey, x5chain: [pki.dsDER])
        let result = await VICALLoader(anchors: [pki.iaca]).load(bytes: bytes, at: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(!result.trusted)
        let chain = try #require(result.checks.first { $0.id == .vicalChain })
        #expect(chain.reason == "signerProfileViolation")
        #expect(chain.message.contains("1.0.18013.5.1.8"))
        // The proper VICAL signer is accepted.
        #expect(await VICALLoader(anchors: [vical.anchor]).load(bytes: try vical.signed(), at: Date(timeIntervalSince1970: 1_700_000_000)).trusted)
    }
}
