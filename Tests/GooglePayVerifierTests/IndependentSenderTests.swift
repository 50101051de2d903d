import Foundation
import GooglePayVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// Tokens built by an independent implementation of Google's published algorithm (Python's
/// `cryptography`, in `.venv-interop`; see Interop/googlepay_sender.py), with keys it made itself:
/// the valid one is accepted, and each way to be wrong is rejected by its own check. Skipped when that
/// Python is missing, unless CI=true.
@Suite struct IndependentSenderTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func available() -> Bool {
        if InteropPython.python != nil { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("python with cryptography is not installed in .venv-interop (scripts/test installs it)")
        }
        return false
    }

    /// The sender's token for `name`, verified at ``now`` with its own root key list and merchant key.
    static func verify(_ name: String) async throws -> GooglePayResult {
        let output = try await InteropPython.run(
            "Tests/GooglePayVerifierTests/Interop/googlepay_sender.py", input: ["case": name, "now": Int64(now.timeIntervalSince1970 * 1000)])
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
        let roots = try GooglePayRootKeys.parse(Array(try #require(sent["rootKeys"]).utf8))
        let key = try GooglePayMerchantKey(pemRepresentation: try #require(sent["merchantKey"]))
        let verifier = GooglePayTokenVerifier(
            rootKeys: roots, keyRing: GooglePayMerchantKeyRing([key]), recipient: .merchant("12345678901234567890"),
            replayStore: InMemoryReplayStore())
        return await verifier.verify(Array(try #require(sent["token"]).utf8), context: .at(now))
    }

    @Test func anIndependentTokenIsAccepted() async throws {
        guard Self.available() else { return }
        let result = try await Self.verify("valid")
        result.expectAccepted()
        let card = try #require(result.payment?.card)
        #expect(card.number == "4111111111111111")
        #expect(card.expiryMonth == 4 && card.expiryYear == 2031)
        #expect(card.cryptogram == "AAAAAAAAAAAAAAAAAAAAAAAAAAA=" && card.eci == "05")
    }

    @Test(arguments: [
        ("root", CheckID.googlePayIntermediateKeySignature, ReasonCode.signatureInvalid),
        ("intermediateSignature", .googlePayIntermediateKeySignature, .signatureInvalid),
        ("intermediateExpired", .googlePayIntermediateKeyExpiration, .intermediateKeyExpired),
        ("signature", .googlePayMessageSignature, .signatureInvalid),
        ("recipient", .googlePayMessageSignature, .signatureInvalid),
        ("tag", .googlePayDecryption, .tagMismatch),
        ("ciphertext", .googlePayDecryption, .tagMismatch),
        ("key", .googlePayDecryption, .tagMismatch),
        ("messageExpired", .googlePayMessageExpiration, .messageExpired),
    ])
    func eachWayToBeWrongIsRejectedByItsCheck(name: String, check: CheckID, reason: ReasonCode) async throws {
        guard Self.available() else { return }
        let result = try await Self.verify(name)
        result.expectRejected(check, reason)
    }

    @Test func anECv1TokenIsRefusedNamingECv2() async throws {
        guard Self.available() else { return }
        let result = try await Self.verify("version")
        #expect(result.verdict == .rejected)
        let structure = result.report.check(.googlePayTokenStructure)
        #expect(structure?.status == .failed)
        #expect(structure?.reason == .unsupportedVersion)
        #expect(structure?.message.contains("ECv2") == true)
    }
}
