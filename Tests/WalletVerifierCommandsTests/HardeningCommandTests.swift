import Foundation
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
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
            "--trust", fixture.iacaPath, "--at", RFC3339.format(ServiceFixture.time), "--format", "json",
        ])
        #expect(result.code == 1, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "rejected")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["id"] as? String == "mdoc.document.structure" && $0["reason"] as? String == "depthLimitExceeded" })
    }
}

/// The review's certificate mesh through the command line: a failed check, quickly.
@Suite struct MeshCommandTests {
    @Test func identityVerifyRefusesAMeshQuickly() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let mesh = try CertificateMesh(width: 3, depth: 12)
        var mdoc = MdocFixture()
        mdoc.additionalCertificates = mesh.meshDER
        let pki = MdocPKI(iacaKey: fixture.mdocPKI.iacaKey, iaca: fixture.mdocPKI.iaca, dsKey: mesh.leafKey, ds: mesh.leaf)
        let nonce = [UInt8](repeating: 3, count: 32)
        let envelope = fixture.directory.appendingPathComponent("mesh.cbor").path
        try Data(try fixture.identityResponse(nonce: nonce, fixture: mdoc, pki: pki)).write(to: URL(fileURLWithPath: envelope))
        let start = ContinuousClock.now
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
            "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
            "--trust", fixture.iacaPath, "--at", RFC3339.format(ServiceFixture.time),
        ])
        let elapsed = ContinuousClock.now - start
        #expect(result.code == 1)
        #expect(result.stdout.contains("chainTooLong"))
        #expect(elapsed < CertificateMesh.endToEndBound, "\(elapsed)")
    }
}

/// `--trust-doctype DOCTYPE=PATH`: a root scoped to the passport does not vouch for a licence.
@Suite struct ScopedTrustCommandTests {
    @Test func aRootScopedToPassportsDoesNotVouchForALicence() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let nonce = [UInt8](repeating: 6, count: 32)
        let envelope = fixture.directory.appendingPathComponent("licence.cbor").path
        try Data(try fixture.identityResponse(nonce: nonce)).write(to: URL(fileURLWithPath: envelope))
        func run(_ trust: [String]) async -> (code: Int32, stdout: String, stderr: String) {
            await WalletVerifierCommand.runCapturing(
                [
                    "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
                    "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
                    "--at", RFC3339.format(ServiceFixture.time),
                ] + trust)
        }
        let passportOnly = await run(["--trust-doctype", "org.iso.23220.photoid.1=\(fixture.iacaPath)"])
        #expect(passportOnly.code == 1)
        #expect(passportOnly.stdout.contains("noTrustAnchor"))
        let licence = await run(["--trust-doctype", "org.iso.23220.photoid.1,org.iso.18013.5.1.mDL=\(fixture.iacaPath)"])
        #expect(licence.code == 0, "\(licence.stdout)")
        let malformed = await run(["--trust-doctype", fixture.iacaPath])
        #expect(malformed.code == 2)
        #expect(malformed.stderr.contains("DOCTYPE[,DOCTYPE...]=PATH"))
    }
}

/// A passport through `identity verify` gets each photo ID check once (the in-app verifier runs them).
@Suite struct PassportCommandTests {
    @Test func photoIDChecksAppearOnce() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let nonce = [UInt8](repeating: 8, count: 32)
        var mdoc = MdocFixture()
        mdoc.docType = "org.iso.23220.photoid.1"
        mdoc.elements = [MdocFixture.Element("org.iso.23220.1", "given_name_unicode", .text("Erika"))]
        let envelope = fixture.directory.appendingPathComponent("passport.cbor").path
        try Data(try fixture.identityResponse(nonce: nonce, fixture: mdoc, pki: fixture.webPKI)).write(to: URL(fileURLWithPath: envelope))
        func run(_ trust: [String]) async -> (code: Int32, stdout: String, stderr: String) {
            await WalletVerifierCommand.runCapturing(
                [
                    "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
                    "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
                    "--at", RFC3339.format(ServiceFixture.time), "--format", "json",
                ] + trust)
        }
        // A passport needs a root scoped to its docType: --trust alone is refused, with how to scope it.
        let unscoped = await run(["--trust", fixture.iacaPath])
        #expect(unscoped.code == 1)
        #expect(unscoped.stdout.contains("rootNotScopedForDocType") && unscoped.stdout.contains("--trust-doctype org.iso.23220.photoid.1=PATH"))
        let result = await run(["--trust", fixture.iacaPath, "--trust-doctype", "org.iso.23220.photoid.1=\(fixture.iacaPath)"])
        #expect(result.code == 0, "\(result.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let ids = (object["checks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(ids.filter { $0 == "photoid.elements" }.count == 1, "\(ids)")
    }
}

/// Control characters in what the input says (docTypes, identifiers, subjects) never reach the
/// operator's terminal as such.
@Suite struct TerminalTextTests {
    @Test func controlCharactersBecomeVisibleEscapes() {
        #expect(TerminalText.escape("plain text, ü and 日本") == "plain text, ü and 日本")
        #expect(TerminalText.escape("a\u{1b}[31mred") == "a\\u001b[31mred")
        #expect(TerminalText.escape("csi\u{9b}2J") == "csi\\u009b2J")
        #expect(TerminalText.escape("bell\u{7}del\u{7f}nul\u{0}") == "bell\\u0007del\\u007fnul\\u0000")
        #expect(TerminalText.escape("rtl\u{202e}txt.exe\u{2066}") == "rtl\\u202etxt.exe\\u2066")
        #expect(TerminalText.escape("line\nforged\tfield\r") == "line\\u000aforged\\u0009field\\u000d")
        #expect(TerminalText.escape("line\nkept\tok\r", keepLineBreaks: true) == "line\nkept\tok\\u000d")
    }

    /// A docType holding an escape sequence and a forged verdict line: the text report shows it
    /// escaped, on one line, and the only verdict line is the real one.
    @Test func textReportEscapesWhatTheInputSays() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let nonce = [UInt8](repeating: 5, count: 32)
        var mdoc = MdocFixture()
        mdoc.docType = "org.iso.18013.5.1.mDL\u{1b}]0;owned\u{7}\u{9b}31m\nverdict: rejected"
        let envelope = fixture.directory.appendingPathComponent("envelope.cbor").path
        try Data(try fixture.identityResponse(nonce: nonce, fixture: mdoc, pki: fixture.webPKI)).write(to: URL(fileURLWithPath: envelope))
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", envelope, "--merchant-key", fixture.identityKeyPath,
            "--nonce", nonce.map { String(format: "%02x", $0) }.joined(), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
            "--trust", fixture.iacaPath, "--at", RFC3339.format(ServiceFixture.time),
        ])
        // Without a request any docType is verified (and here accepted): the elements are listed under it.
        #expect(result.code == 0)
        let output = result.stdout + result.stderr
        #expect(!output.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 || $0.value == 0x9b })
        #expect(output.contains("\\u001b]0;owned\\u0007\\u009b31m\\u000averdict: rejected"))
        let verdictLines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("verdict:") }
        #expect(verdictLines == ["verdict: accepted"])
    }
}
