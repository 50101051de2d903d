import Crypto
import Foundation
import Testing
import WalletCBOR
import WalletCOSE
import WalletVerifierCommands
import WalletVerifierTestSupport
import WebIdentity

private let capture = "mdoc/dcapi-annex-c-chrome-android-jmandel/request/"

/// `web request --reader-key/--reader-cert` and `web verify-request`, end to end.
@Suite struct ReaderAuthCommandTests {
    @Test(arguments: [false, true])
    func aSignedRequestVerifiesOnTheCommandLine(all: Bool) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = ReaderPKI.Options()
        options.intermediate = true
        options.curve = .p384
        let pki = try ReaderPKI(options)
        let key = try scratch.write("reader-key.pem", pki.readerKeyPEM)
        let leaf = try scratch.write("reader.pem", ReaderPKI.pem(pki.reader))
        let intermediate = try scratch.write("intermediate.pem", ReaderPKI.pem(pki.intermediate!))
        let root = try scratch.write("root.pem", ReaderPKI.pem(pki.root))
        let recipient = try scratch.write("recipient.pem", P256.KeyAgreement.PrivateKey().pemRepresentation)
        let created = await WalletVerifierCommand.runCapturing(
            [
                "web", "request", "--doctype", "org.iso.18013.5.1.mDL", "--element", "org.iso.18013.5.1/age_over_21",
                "--origin", "https://shop.example", "--recipient-key", recipient, "--out", scratch.path("session.json"),
                "--reader-key", key, "--reader-cert", leaf, "--reader-cert", intermediate,
            ] + (all ? ["--reader-auth-all"] : []))
        #expect(created.code == 0, "\(created.stderr)")
        #expect(!created.stderr.contains("warning"))
        let argument = try scratch.write("argument.json", created.stdout)
        let verified = await WalletVerifierCommand.runCapturing([
            "web", "verify-request", "--request", argument, "--origin", "https://shop.example",
            "--trust", root, "--format", "json",
        ])
        #expect(verified.code == 0, "\(verified.stdout)")
        let report = try json(verified.stdout)
        #expect(check(report, "reader.auth.signature")?["status"] as? String == "passed")
        #expect(check(report, "reader.auth.chain")?["status"] as? String == "passed")
        #expect(check(report, "reader.auth.profile")?["status"] as? String == "passed")
        // Another origin: the signature does not verify (exit 1).
        let other = await WalletVerifierCommand.runCapturing([
            "web", "verify-request", "--request", argument, "--origin", "https://attacker.example", "--trust", root,
        ])
        #expect(other.code == 1)
        #expect(other.stdout.contains("readerSignatureInvalid"))
        // An untrusted root: the chain fails.
        let stranger = try scratch.write("stranger.pem", ReaderPKI.pem(try ReaderPKI().root))
        let untrusted = await WalletVerifierCommand.runCapturing([
            "web", "verify-request", "--request", argument, "--origin", "https://shop.example", "--trust", stranger,
        ])
        #expect(untrusted.code == 1)
        #expect(untrusted.stdout.contains("untrustedReader"))
    }

    @Test func configurationErrorsAndProfileWarnings() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pki = try ReaderPKI()
        let recipient = try scratch.write("recipient.pem", P256.KeyAgreement.PrivateKey().pemRepresentation)
        let leaf = try scratch.write("reader.pem", ReaderPKI.pem(pki.reader))
        let base = [
            "web", "request", "--doctype", "org.iso.18013.5.1.mDL", "--element", "org.iso.18013.5.1/age_over_21",
            "--origin", "https://shop.example", "--recipient-key", recipient, "--out", scratch.path("session.json"),
        ]
        // A key that is not the leaf's: refused at configuration time (exit 2).
        let otherKey = try scratch.write("other-key.pem", P256.Signing.PrivateKey().pemRepresentation)
        let mismatch = await WalletVerifierCommand.runCapturing(base + ["--reader-key", otherKey, "--reader-cert", leaf])
        #expect(mismatch.code == 2)
        #expect(mismatch.stderr.contains("does not match"))
        let alone = await WalletVerifierCommand.runCapturing(base + ["--reader-cert", leaf])
        #expect(alone.code == 2)
        // A leaf without the reader EKU: a warning, the request is still signed.
        var noEKU = ReaderPKI.Options()
        noEKU.readerHasEKU = false
        let unprofiled = try ReaderPKI(noEKU)
        let key = try scratch.write("key.pem", unprofiled.readerKeyPEM)
        let cert = try scratch.write("unprofiled.pem", ReaderPKI.pem(unprofiled.reader))
        let warned = await WalletVerifierCommand.runCapturing(base + ["--reader-key", key, "--reader-cert", cert])
        #expect(warned.code == 0)
        #expect(warned.stderr.contains("warning") && warned.stderr.contains("1.0.18013.5.1.6"))
    }

    /// The real Chrome capture's request, verified with its reader certificate pinned: the signature
    /// and the chain pass; the demo certificate breaks the Annex B profile (no reader EKU).
    @Test func theRealCaptureOnTheCommandLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let received = try ReceivedDeviceRequest(cborBytes: try TestVectors.data(capture + "device-request.cbor"))
        let der = try received.docRequests[0].readerAuth!.headers.x5chainBytes()[0]
        let pinned = try scratch.write("reader.pem", pem(Array(der)))
        let result = await WalletVerifierCommand.runCapturing([
            "web", "verify-request", "--request", TestVectors.path(capture + "navigator-credentials-get.arg.json"),
            "--origin", "http://127.0.0.1:3010", "--trust", pinned, "--at", "2026-05-01T17:30:00Z", "--format", "json",
        ])
        #expect(result.code == 1, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(check(report, "reader.auth.signature")?["status"] as? String == "passed")
        #expect(check(report, "reader.auth.chain")?["status"] as? String == "passed")
        #expect(check(report, "reader.auth.profile")?["reason"] as? String == "profileViolation")
        // The DeviceRequest alone needs the encryption info.
        let bare = await WalletVerifierCommand.runCapturing([
            "web", "verify-request", "--request", TestVectors.path(capture + "device-request.cbor"),
            "--origin", "http://127.0.0.1:3010", "--trust", pinned,
        ])
        #expect(bare.code == 2)
        let withInfo = await WalletVerifierCommand.runCapturing([
            "web", "verify-request", "--request", TestVectors.path(capture + "device-request.cbor"),
            "--encryption-info", TestVectors.path(capture + "encryption-info.b64u"),
            "--origin", "http://127.0.0.1:3010", "--trust", pinned, "--at", "2026-05-01T17:30:00Z",
        ])
        #expect(withInfo.stdout.contains("PASS  reader.auth.signature"))
    }
}

@Suite struct InspectReaderAuthTests {
    /// `cbor inspect` on a signed DeviceRequest shows the readerAuth's protected header decoded and
    /// names the x5chain certificates by subject.
    @Test func inspectNamesTheReaderCertificate() async throws {
        let result = await WalletVerifierCommand.runCapturing([
            "cbor", "inspect", TestVectors.path("mdoc/dcapi-annex-c-chrome-android-jmandel/request/device-request.cbor"),
        ])
        #expect(result.code == 0)
        #expect(result.stdout.contains("\"readerAuth\": ["))
        // The protected header decoded ({1: -7}, ES256), the x5chain certificate in the unprotected
        // header, the detached payload as null, then the signature.
        let out = result.stdout.replacingOccurrences(of: " ", with: "")
        #expect(out.contains("\"readerAuth\":[\n<<{\n1:-7\n}>>,\n{\n33:[\nh'30820151"))
        #expect(out.contains("]\n},\nnull,\nh'4de108e1"))
        #expect(out.contains("\"itemsRequest\":24(<<{\n\"docType\":\"org.smarthealthit.checkin.1\""))
        #expect(result.stdout.contains("/ x5chain 0 certificate 0: CN=SMART Health Check-in Demo Verifier /"))
    }
}

/// The reader-authentication example of docs/cli.md, run as written: the OpenSSL lines by a shell in a scratch
/// directory, the wallet-verifier lines in process with their file arguments in that directory.
@Suite struct ReaderAuthReadmeExampleTests {
    @Test func theReadmeExampleRuns() async throws {
        let readme = try String(
            contentsOf: TestVectors.root.deletingLastPathComponent().appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "Example: a reader root and a reader certificate"))
        let block = readme[start.upperBound...]
        let open = try #require(block.range(of: "```sh\n")), close = try #require(block[open.upperBound...].range(of: "\n```"))
        let lines = String(block[open.upperBound..<close.lowerBound]).replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").map(
            String.init)
        let openssl = lines.filter { $0.hasPrefix("openssl ") || $0.hasPrefix("printf ") }
        let commands = lines.filter { $0.hasPrefix("swift run wallet-verifier ") }
        #expect(openssl.count == 7 && commands.count == 2)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("openssl is not installed (scripts/test installs it)") }
            return
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-euc", openssl.joined(separator: "\n")]
        shell.currentDirectoryURL = scratch.url
        shell.standardOutput = FileHandle.nullDevice
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)

        let fileOptions: Set<String> = ["--recipient-key", "--out", "--reader-key", "--reader-cert", "--request", "--trust"]
        func run(_ line: String) async -> (code: Int32, stdout: String, stderr: String, redirect: String?) {
            var words = line.dropFirst("swift run wallet-verifier ".count).split(separator: " ").map(String.init)
            var redirect: String?
            if let index = words.firstIndex(of: ">") {
                redirect = words[index + 1]
                words.removeSubrange(index...)
            }
            for index in words.indices.dropFirst() where fileOptions.contains(words[index - 1]) { words[index] = scratch.path(words[index]) }
            let result = await WalletVerifierCommand.runCapturing(words)
            return (result.code, result.stdout, result.stderr, redirect)
        }
        let created = await run(commands[0])
        #expect(created.code == 0, "\(created.stderr)")
        _ = try scratch.write(try #require(created.redirect), created.stdout)
        let verified = await run(commands[1])
        #expect(verified.code == 0, "\(verified.stdout)")
        for id in ["reader.request.structure", "reader.request.items", "reader.auth.signature", "reader.auth.chain", "reader.auth.profile"] {
            #expect(verified.stdout.contains("PASS  \(id)"), "\(id)")
        }
        #expect(verified.stdout.contains("verdict: accepted"))
        let other = await run(commands[1].replacingOccurrences(of: "--origin https://shop.example", with: "--origin https://other.example"))
        #expect(other.code == 1 && other.stdout.contains("FAIL  reader.auth.signature"))
    }
}
