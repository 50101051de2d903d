import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

@testable import WalletIdentity

/// The envelope fixture builds what Wallet builds: Apple's sample plaintext, sealed by the fixture to
/// the sample's merchant key with the sample's nonce, merchant and team, has the sample envelope's
/// shape (same members, same kinds, same pkRHash and infoHash) and verifies end to end like it.
@Suite struct EnvelopeFixtureSampleFormatTests {
    private static let sample = "mdoc/apple-verify-with-wallet-sample/sample/"

    /// Member name → kind of item, for a map and its `params` map.
    static func shape(_ node: CBORNode) throws -> [String: String] {
        var shape: [String: String] = [:]
        for entry in try #require(node.mapValue) {
            let name = try entry.key.text("member")
            shape[name] = entry.value.value.kindDescription
            if name == "params" {
                for param in try #require(entry.value.mapValue) {
                    shape["params." + (try param.key.text("param"))] = param.value.value.kindDescription
                }
            }
        }
        return shape
    }

    @Test func fixtureEnvelopeOfTheSamplePlaintextMatchesTheSample() async throws {
        let ring = try sampleKeyRing()
        let recipient = try #require(ring.keys.first).privateKey.publicKey
        let plaintext = try TestVectors.hex(Self.sample + "plaintext_topics.cbor")
        let built = try IdentityEnvelopeFixture().envelope(
            plaintext: plaintext, recipient: recipient, nonce: try sampleNonce(),
            merchantID: sampleMerchant, teamID: sampleTeam)
        let original = try CBORDecoder.decode(try TestVectors.hex(Self.sample + "hpke_envelope.cbor"))
        let ours = try CBORDecoder.decode(built)

        #expect(try Self.shape(ours) == Self.shape(original))
        let originalParams = try #require(original.mapValue?["params"]?.mapValue)
        let ourParams = try #require(ours.mapValue?["params"]?.mapValue)
        #expect(ours.mapValue?["algorithm"] == original.mapValue?["algorithm"])
        for name in ["mode", "pkRHash", "infoHash"] {
            #expect(ourParams[name] == originalParams[name], "params.\(name)")
        }
        // A fresh ephemeral key: pkEm and the ciphertext differ, their sizes do not.
        #expect(ourParams["pkEm"] != originalParams["pkEm"])
        #expect(try ourParams["pkEm"]?.bytes("pkEm").count == originalParams["pkEm"]?.bytes("pkEm").count)
        #expect(try ours.mapValue?["data"]?.bytes("data").count == original.mapValue?["data"]?.bytes("data").count)

        // And it verifies as the sample does.
        let verifier = AppleIdentityVerifier(
            keyRing: ring, merchantID: sampleMerchant, teamID: sampleTeam, trustStore: try sampleTrust(), revocation: .off(because: "not under test"))
        let result = await verifier.verify(encryptedData: built, nonce: try sampleNonce(), context: .at(sampleTime))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        #expect(result.documents.first?.element("org.iso.18013.5.1", "given_name")?.stringValue == "Jane")
    }
}
