import Foundation
import Testing
import WalletVerifierCommands
import WalletVerifierTestSupport

private let annexD = "mdoc/iso18013-5-annex-d/"

@Suite struct MdocVerifyCommandTests {
    func run(_ extra: [String], readerKey: Bool = true, at: String = "2021-01-01T00:00:00Z") async -> (code: Int32, stdout: String, stderr: String) {
        var arguments = [
            "mdoc", "verify",
            "--device-response", TestVectors.path(annexD + "device_response.cbor"),
            "--session-transcript", TestVectors.path(annexD + "session_transcript_bytes.cbor.hex"),
            "--trust", TestVectors.path(annexD + "document_signer.pem"), "--at", at,
        ]
        if readerKey { arguments += ["--reader-key", TestVectors.path(annexD + "ereader_key_private_d.hex")] }
        return await WalletVerifierCommand.runCapturing(arguments + extra)
    }

    @Test func acceptedAnnexDWithJSON() async throws {
        let result = await run(["--format", "json"])
        #expect(result.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "accepted")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["id"] as? String == "mdoc.device.authentication" && $0["status"] as? String == "passed" })
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(documents.first?["docType"] as? String == "org.iso.18013.5.1.mDL")
        let elements = try #require(documents.first?["elements"] as? [String: [String: Any]])
        #expect(elements["org.iso.18013.5.1"]?["family_name"] as? String == "Doe")
        #expect(elements["org.iso.18013.5.1"]?["issue_date"] as? String == "2019-10-20")
        #expect((elements["org.iso.18013.5.1"]?["portrait"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 1042)
        #expect(object["warnings"] is [Any])
    }

    @Test func withoutReaderKeyIsIndeterminate() async {
        let result = await run([], readerKey: false)
        #expect(result.code == 3)
        #expect(result.stdout.contains("reader key required"))
        #expect(result.stdout.contains("verdict: indeterminate"))
    }

    @Test func expiredIsRejectedAndHidesElements() async throws {
        let result = await run(["--format", "json"], at: "2026-11-21T00:00:00Z")
        #expect(result.code == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "rejected")
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(documents.first?["elements"] == nil)
        #expect(!result.stdout.contains("Doe"))
    }

    @Test func usageErrors() async {
        #expect(await run(["--at", "yesterday"]).code == 2)
        #expect(await run(["--clock-skew", "-1"]).code == 2)
        let noTrust = await WalletVerifierCommand.runCapturing(["mdoc", "verify", "--device-response", "x", "--session-transcript", "y"])
        #expect(noTrust.code == 2)
        let missingFile = await WalletVerifierCommand.runCapturing([
            "mdoc", "verify", "--device-response", "/nonexistent", "--session-transcript", "y", "--trust",
            TestVectors.path(annexD + "document_signer.pem"),
        ])
        #expect(missingFile.code == 2)
    }
}

/// Google Wallet's answer over the DC API (OpenID4VP draft 24 handover, owf-mdoc-ts-examples/google):
/// with its documented transcript, `mdoc verify` verifies the issuer and device signatures and the
/// digests, as before OpenID4VP 1.0 was added (its self-signed signer, pinned, follows the signer profile).
@Suite struct GoogleDraft24MdocVerifyTests {
    static let owf = "mdoc/owf-mdoc-ts-examples/google/"

    @Test func theDocumentedTranscriptVerifies() async throws {
        let result = await WalletVerifierCommand.runCapturing([
            "mdoc", "verify", "--device-response", TestVectors.path(Self.owf + "device_response.cbor"),
            "--session-transcript", TestVectors.path(Self.owf + "session_transcript.cbor"),
            "--trust", TestVectors.path(Self.owf + "signingCertificate.pem"), "--at", "2025-02-20T00:00:00Z", "--revocation", "off",
            "--format", "json",
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        let checks = try #require(object["checks"] as? [[String: Any]])
        func status(_ id: String) -> String? { checks.first { $0["id"] as? String == id }?["status"] as? String }
        #expect(result.code == 0 && object["verdict"] as? String == "accepted", "\(result.stdout)")
        for id in ["mdoc.issuer.signature", "mdoc.issuer.chain", "mdoc.valueDigests", "mdoc.validity", "mdoc.device.authentication"] {
            #expect(status(id) == "passed", "\(id)")
        }
        // Another transcript (the Annex D one) does not verify the device signature.
        let other = await WalletVerifierCommand.runCapturing([
            "mdoc", "verify", "--device-response", TestVectors.path(Self.owf + "device_response.cbor"),
            "--session-transcript", TestVectors.path("mdoc/iso18013-5-annex-d/session_transcript_bytes.cbor.hex"),
            "--trust", TestVectors.path(Self.owf + "signingCertificate.pem"), "--at", "2025-02-20T00:00:00Z", "--revocation", "off",
            "--format", "json",
        ])
        #expect(other.code == 1)
        let otherChecks = try #require(
            (try JSONSerialization.jsonObject(with: Data(other.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: Any]])
        let device = otherChecks.first { $0["id"] as? String == "mdoc.device.authentication" }
        #expect(device?["status"] as? String == "failed" && device?["reason"] as? String == "deviceSignatureInvalid")
    }
}
