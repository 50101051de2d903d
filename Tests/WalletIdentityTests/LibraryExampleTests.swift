import Crypto
import Foundation
import MdocVerifier
import Testing
import TrustDocuments
import VerificationCore
import WalletCBOR
import WalletIdentity
import WalletVerifierTestSupport

/// README's "As a library" identity example, run on a fixture: the same calls, with the fixture's
/// key, roots, merchant and a nonce.
@Suite struct LibraryExampleTests {
    @Test func theReadmeIdentityExampleRuns() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let nonce = [UInt8](repeating: 9, count: 32)
        var mdoc = MdocFixture()
        mdoc.elements = [.init(MdocFixture.isoNameSpace, "age_over_21", .bool(true))]
        let encryptedData = try fixture.identityResponse(nonce: nonce, fixture: mdoc)

        var keys = IdentityKeyRing()
        try keys.load(path: fixture.identityKeyPath)
        var trust = IACATrustStore()
        try trust.load(path: fixture.iacaPath)
        // Seed 002: check the MSO's revocation list (fetched from its status uri, cached for its ttl).
        let revocation = RevocationChecker(source: RevocationListCache(transport: HTTPTrustDocumentTransport()), trustStore: trust)
        let verifier = AppleIdentityVerifier(
            keyRing: keys, merchantID: fixture.merchantID, teamID: fixture.teamID, trustStore: trust, revocation: revocation)
        let request = try IdentityRequestDescriptor.decode(
            json: Data(#"{"document": "driversLicense", "elements": [{"element": "age", "atLeast": 21, "intentToStore": "willNotStore"}]}"#.utf8))
        let result = await verifier.verify(encryptedData: encryptedData, nonce: nonce, request: request, context: .at(ServiceFixture.time))
        var admitted = false
        if result.report.verdict == .accepted, let age = result.claims?.ageAtLeast, age.value == true {
            admitted = true
        } else {
            for failure in result.report.failures { print(failure.id, failure.reason, failure.message) }
        }
        #expect(admitted, "\(result.report.failures.map(\.message))")
        // Another nonce: not admitted, and the failures say why.
        let other = await verifier.verify(
            encryptedData: encryptedData, nonce: [UInt8](repeating: 8, count: 32), request: request, context: .at(ServiceFixture.time))
        #expect(other.report.verdict == .rejected && other.claims == nil)
        #expect(other.report.failures.contains { $0.reason == "infoHashMismatch" })
    }
}
