import Foundation
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierCommands
import WalletVerifierTestSupport

/// Hostile inputs through the command line: a clean answer and exit code, never a crash.
@Suite struct HardeningCommandTests {
    private static func write(_ bytes: [UInt8], in directory: URL, _ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// 100,000 nested tag-24 items: shown decoded up to the depth budget, then as bytes.
    @Test func inspectOfDeepTag24NestingStopsAtTheBudget() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let path = try Self.write(HostileCBOR.nestedTag24(levels: 100_000), in: fixture.directory, "nested.cbor")
        for extra in [[], ["--compact"]] {
            let result = await WalletVerifierCommand.runCapturing(["cbor", "inspect"] + extra + [path])
            #expect(result.code == 0)
            #expect(result.stdout.hasPrefix("24(<< 24(<< "))
            let marked = result.stdout.contains("not decoded: nested deeper than 64 levels")
            #expect(marked)
        }
    }

    /// An in-app response whose element value is 100,000 nested tag-24 items, signed by a trusted
    /// issuer: rejected with a failed structure check (exit 1).
    @Test func identityVerifyOfDeepElementNestingIsRejected() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let nonce = [UInt8](repeating: 9, count: 32)
        var mdoc = MdocFixture()
        mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "given_name", try HostileCBOR.nestedTag24Node(levels: 100_000))]
        let envelope = try Self.write(try fixture.identityResponse(nonce: nonce, fixture: mdoc), in: fixture.directory, "envelope.cbor")
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
            "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
            "--trust", fixture.iacaPath, "--at", RFC3339Time.format(ServiceFixture.time), "--format", "json",
        ])
        #expect(result.code == 1, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "rejected")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["id"] as? String == "mdoc.document.structure" && $0["reason"] as? String == "depthLimitExceeded" })
    }
}
