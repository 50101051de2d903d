import Foundation
import Testing
import WalletVerifierCommands
import WalletVerifierTestSupport

/// `wallet-verifier sdjwt verify` on presentations the fixture builds: accepted with the claims,
/// rejected with exit 1 for another nonce or type, usage errors with exit 2.
@Suite struct SDJWTCommandTests {
    @Test func aPresentationIsVerifiedWithItsRootsScopedByType() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let now = Date()
        let fixture = try SDJWTFixture(now: now)
        let root = try scratch.write("pid-root.pem", try fixture.rootPEM())
        let credential = try scratch.write("presentation.txt", try SDJWTFixture.presentation(try fixture.parts(now: now)) + "\n")
        let base = ["sdjwt", "verify", "--credential", credential, "--audience", SDJWTFixture.audience, "--trust-vct", "\(SDJWTFixture.vct)=\(root)"]

        let accepted = await WalletVerifierCommand.runCapturing(
            base + ["--nonce", SDJWTFixture.nonce, "--vct", SDJWTFixture.vct, "--format", "json"])
        #expect(accepted.code == 0, "\(accepted.stdout)\(accepted.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "accepted")
        #expect(object["vct"] as? String == SDJWTFixture.vct)
        let claims = try #require(object["claims"] as? [String: Any])
        #expect(claims["given_name"] as? String == "Erika")
        #expect((claims["age_equal_or_over"] as? [String: Any])?["18"] as? Bool == true)

        let text = await WalletVerifierCommand.runCapturing(base + ["--nonce", SDJWTFixture.nonce])
        #expect(text.code == 0)
        #expect(text.stdout.contains("PASS  sdjwt.holder.binding") && text.stdout.contains("verdict: accepted"), "\(text.stdout)")

        // Another request's nonce: rejected by the holder binding, no claims.
        let replayed = await WalletVerifierCommand.runCapturing(base + ["--nonce", "another", "--format", "json"])
        #expect(replayed.code == 1)
        let rejected = try #require(try JSONSerialization.jsonObject(with: Data(replayed.stdout.utf8)) as? [String: Any])
        #expect(rejected["claims"] == nil)
        // A root scoped to another type vouches for nothing here.
        let scoped = await WalletVerifierCommand.runCapturing([
            "sdjwt", "verify", "--credential", credential, "--audience", SDJWTFixture.audience, "--nonce", SDJWTFixture.nonce,
            "--trust-vct", "urn:other:type=\(root)",
        ])
        #expect(scoped.code == 1)
        #expect(scoped.stdout.contains("noTrustAnchor"), "\(scoped.stdout)")
    }

    @Test func usageErrorsExit2() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let credential = try scratch.write("p.txt", "x~")
        let noTrust = await WalletVerifierCommand.runCapturing(["sdjwt", "verify", "--credential", credential, "--nonce", "n", "--audience", "a"])
        #expect(noTrust.code == 2)
        let badEntry = await WalletVerifierCommand.runCapturing([
            "sdjwt", "verify", "--credential", credential, "--nonce", "n", "--audience", "a", "--trust-vct", "no-equals-sign",
        ])
        #expect(badEntry.code == 2)
        #expect(badEntry.stderr.contains("--trust-vct"), "\(badEntry.stderr)")
    }
}
