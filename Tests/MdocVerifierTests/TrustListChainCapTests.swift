import Foundation
import MdocVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// The x5chain of a revocation list and of a VICAL is attacker-supplied like an mdoc's: at most four
/// certificates are read, so no chain of them reaches path building.
@Suite struct TrustListChainCapTests {
    @Test func aRevocationListWithALongChainIsNotTrusted() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let padded = s.signer.x5chain + Array(repeating: s.signer.x5chain[1], count: 3)
        let list = try s.identifierList([]).signed(key: s.signer.signerKey, x5chain: padded)
        let report = try await s.verify(response, lists: [list]).report
        let check = try #require(report.check(.mdocRevocationList))
        #expect(check.status != .passed)
        #expect(check.message.contains("holds 5 certificates; at most 4 are read"), "\(check.message)")
        #expect(report.verdict != .accepted)
        // Four are read.
        let four = try s.identifierList([]).signed(
            key: s.signer.signerKey, x5chain: s.signer.x5chain + Array(repeating: s.signer.x5chain[1], count: 2))
        #expect(try await s.verify(response, lists: [four]).report.check(.mdocRevocationList)?.status == .passed)
    }

    @Test func aVICALWithALongChainIsNotTrusted() async throws {
        let pki = try MdocPKI()
        var vical = try VICALFixture()
        vical.entries = [.init(pki.iaca, docTypes: ["org.iso.18013.5.1.mDL"])]
        let signer = ReaderPKI.der(vical.signer), anchor = ReaderPKI.der(vical.anchor)
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        let long = try vical.signed(key: vical.signerKey, x5chain: [signer, anchor, anchor, anchor, anchor])
        let result = await VICALLoader(anchors: [vical.anchor]).load(bytes: long, at: at)
        #expect(!result.trusted)
        #expect(result.checks.contains { $0.reason == "chainTooLong" }, "\(result.checks.map { $0.reason })")
        let four = try vical.signed(key: vical.signerKey, x5chain: [signer, anchor, anchor, anchor])
        #expect(await VICALLoader(anchors: [vical.anchor]).load(bytes: four, at: at).trusted)
    }
}
