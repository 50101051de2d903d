import Crypto
import Foundation
import SwiftASN1
import Testing
import VerificationReceipts
import WalletJSON
import WalletVerifierCommands
import WalletVerifierTestSupport
import X509

/// `--receipt-key` on every verify command, and `receipt verify`.
@Suite struct ReceiptCommandTests {
    static let annexD = "mdoc/iso18013-5-annex-d/"
    static let sample = "mdoc/apple-verify-with-wallet-sample/sample/"
    static let seatgeek = "applepay/seatgeek-2014-ec/"
    static let webCapture = "mdoc/dcapi-annex-c-chrome-android-jmandel/"
    static let identityNonce =
        "964c3e56a06061fa213fce2ba73217a6d359c2e65d44ec6b5b94f9c57eeeb3c045906344c7032e2609eb60533c35a98a75d0d2444ef9057c55cbb2d05d672a25"

    /// A receipt key in a scratch directory: the PEM file, the signer and its JWKS file.
    struct Key {
        let privateKey: P256.Signing.PrivateKey
        let path: String
        let signer: ReceiptSigningKey
        let jwksPath: String

        init(_ scratch: Scratch, name: String = "receipt") throws {
            privateKey = P256.Signing.PrivateKey()
            path = try scratch.write("\(name).pem", privateKey.pemRepresentation)
            signer = try ReceiptSigningKey(privateKey: privateKey)
            jwksPath = try scratch.write("\(name).jwks.json", ReceiptKeySet.json([signer.publicJWK]))
        }

        var jwks: [UInt8] { Array(ReceiptKeySet.json([signer.publicJWK]).utf8) }

        /// A self-signed certificate of the key, as PEM.
        func selfSignedPEM() throws -> String {
            let name = try DistinguishedName { CommonName("Receipt signer (test)") }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(privateKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400), issuer: name, subject: name,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions {}, issuerPrivateKey: Certificate.PrivateKey(privateKey))
            return try certificate.serializeAsPEM().pemString
        }
    }

    // MARK: - The commands

    static func mdoc(at: String = "2021-01-01T00:00:00Z", readerKey: Bool = true) -> [String] {
        var arguments = [
            "mdoc", "verify", "--device-response", TestVectors.path(annexD + "device_response.cbor"),
            "--session-transcript", TestVectors.path(annexD + "session_transcript_bytes.cbor.hex"),
            "--trust", TestVectors.path(annexD + "document_signer.pem"), "--at", at,
        ]
        if readerKey { arguments += ["--reader-key", TestVectors.path(annexD + "ereader_key_private_d.hex")] }
        return arguments
    }

    static func identity(merchantID: String = "PassKit_Identity_Test_Merchant_ID") -> [String] {
        [
            "identity", "verify", "--envelope", TestVectors.path(sample + "hpke_envelope.cbor"),
            "--merchant-key", TestVectors.path(sample + "merchant_encryption.key"),
            "--nonce", identityNonce, "--merchant-id", merchantID, "--team-id", "PassKit_Identity_Test_Team_ID",
            "--trust", TestVectors.path(sample + "issuer_root.crt"), "--at", "2022-04-01T00:00:00Z",
        ]
    }

    static func applePay(at: String? = "2014-10-27T19:52:43Z") -> [String] {
        var arguments = [
            "applepay", "decrypt", "--token", TestVectors.path(seatgeek + "token.json"),
            "--merchant-cert", TestVectors.path(seatgeek + "certificate.pem"),
            "--merchant-key", TestVectors.path(seatgeek + "private_key.pem"),
        ]
        if let at { arguments += ["--at", at] }
        return arguments
    }

    static func web(_ scratch: Scratch, policy: String = "developer") throws -> [String] {
        try WebVerifyCommandTests().realCapture(["--at", "2026-05-01T17:30:00Z", "--policy", policy], scratch: scratch)
    }

    static let webResponse = TestVectors.path(webCapture + "response/wallet-response.digital-credential.json")

    // MARK: - Checking a printed receipt

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The `(id, status, reason, scope)` of a list of checks, in order.
    static func checkRows(_ value: Any?) throws -> [[String?]] {
        let checks = try #require(value as? [[String: Any]])
        return checks.map { check in ["id", "status", "reason", "scope"].map { check[$0] as? String } }
    }

    /// The JSON output's receipt, verified with `key`: it states the report's verdict and checks (in
    /// order), `flow`, the digest of the file `submission` (of its CBOR when `cbor`: the file may
    /// hold it as hex or base64 text), and was issued now.
    @discardableResult
    static func expectReceipt(_ stdout: String, key: Key, flow: String, submission: String, cbor: Bool = false) throws -> (
        jws: String, payload: [String: Any]
    ) {
        let report = try json(stdout)
        let jws = try #require(report["receipt"] as? String, "no receipt in \(stdout.prefix(300))")
        let verified = try ReceiptVerifier.verify(jws, jwks: key.jwks)
        #expect(verified.keyID == key.signer.keyID)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])
        #expect(payload["flow"] as? String == flow)
        #expect(payload["verdict"] as? String == report["verdict"] as? String)
        #expect(payload["time"] as? String == report["evaluatedAt"] as? String)
        let reportChecks = try checkRows(report["checks"])
        #expect(!reportChecks.isEmpty)
        #expect(try checkRows(payload["checks"]) == reportChecks)
        let bytes = cbor ? try InputFiles.readCBORFile(submission).bytes : try InputFiles.readFile(submission)
        let digest = Array(SHA256.hash(data: bytes))
        #expect((payload["submission"] as? [String: Any])?["sha256"] as? String == base64URL(digest))
        // Issued by the real clock, not at --at.
        let issuedAt = try #require(payload["iat"] as? Int)
        #expect(abs(Double(issuedAt) - Date().timeIntervalSince1970) < 600)
        #expect((payload["jti"] as? String)?.isEmpty == false)
        return (jws, payload)
    }

    /// Runs `arguments` as JSON with and without `--receipt-key`: the output with it is the output
    /// without it with a `receipt` member added last, and the exit code is the same.
    static func runWithAndWithoutReceipt(_ arguments: [String], key: Key, extra: [String] = []) async throws -> (
        code: Int32, stdout: String
    ) {
        let plain = await WalletVerifierCommand.runCapturing(arguments + ["--format", "json"])
        let signed = await WalletVerifierCommand.runCapturing(arguments + ["--format", "json", "--receipt-key", key.path] + extra)
        #expect(signed.code == plain.code, "\(signed.stderr)")
        #expect(!plain.stdout.contains("\"receipt\""))
        let jws = try #require(try json(signed.stdout)["receipt"] as? String)
        #expect(signed.stdout == String(plain.stdout.dropLast(2)) + ",\"receipt\":\"\(jws)\"}\n")
        return (signed.code, signed.stdout)
    }

    // MARK: - Every flow

    @Test func mdocVerifyReceipts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let submission = TestVectors.path(Self.annexD + "device_response.cbor")
        let accepted = try await Self.runWithAndWithoutReceipt(Self.mdoc(), key: key)
        #expect(accepted.code == 0)
        let (_, payload) = try Self.expectReceipt(accepted.stdout, key: key, flow: "mdoc", submission: submission, cbor: true)
        #expect(payload["verdict"] as? String == "accepted")
        let documents = try #require(payload["documents"] as? [[String: Any]])
        #expect(documents.first?["docType"] as? String == "org.iso.18013.5.1.mDL")
        // No personal data: element names, never values.
        let signed = try ReceiptVerifier.verify(try #require(try json(accepted.stdout)["receipt"] as? String), jwks: key.jwks)
        #expect(accepted.stdout.contains("Doe"))
        #expect(!String(decoding: signed.payload, as: UTF8.self).contains("Doe"))
        #expect((documents.first?["disclosed"] as? [String])?.contains("org.iso.18013.5.1/family_name") == true)

        let rejected = try await Self.runWithAndWithoutReceipt(Self.mdoc(at: "2026-11-21T00:00:00Z"), key: key)
        #expect(rejected.code == 1)
        let rejectedPayload = try Self.expectReceipt(rejected.stdout, key: key, flow: "mdoc", submission: submission, cbor: true).payload
        #expect(rejectedPayload["verdict"] as? String == "rejected")

        let undecided = try await Self.runWithAndWithoutReceipt(Self.mdoc(readerKey: false), key: key)
        #expect(undecided.code == 3)
        #expect(
            try Self.expectReceipt(undecided.stdout, key: key, flow: "mdoc", submission: submission, cbor: true).payload["verdict"] as? String
                == "indeterminate")
    }

    @Test func identityVerifyReceipts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let submission = TestVectors.path(Self.sample + "hpke_envelope.cbor")
        let accepted = try await Self.runWithAndWithoutReceipt(Self.identity(), key: key, extra: ["--receipt-issuer", "https://verifier.example"])
        #expect(accepted.code == 0)
        let payload = try Self.expectReceipt(accepted.stdout, key: key, flow: "identity", submission: submission, cbor: true).payload
        #expect(payload["iss"] as? String == "https://verifier.example")
        #expect(payload["request"] == nil)
        #expect(!String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self).contains("Jane"))

        let rejected = try await Self.runWithAndWithoutReceipt(Self.identity(merchantID: "other"), key: key)
        #expect(rejected.code == 1)
        let rejectedPayload = try Self.expectReceipt(rejected.stdout, key: key, flow: "identity", submission: submission, cbor: true).payload
        #expect(rejectedPayload["verdict"] as? String == "rejected")
        #expect(rejectedPayload["iss"] == nil)
    }

    @Test func applePayDecryptReceipts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let submission = TestVectors.path(Self.seatgeek + "token.json")
        let accepted = try await Self.runWithAndWithoutReceipt(Self.applePay(), key: key)
        #expect(accepted.code == 0)
        let payload = try Self.expectReceipt(accepted.stdout, key: key, flow: "applepay", submission: submission).payload
        #expect(payload["protocol"] as? String == "EC_v1")
        let payment = try #require(payload["payment"] as? [String: Any])
        #expect(payment["currency"] as? String == "840")
        #expect(payment["amount"] as? String == "100")
        let signedText = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
        #expect(!signedText.contains("4109370251004320"))
        #expect(!signedText.contains("Af9x"))

        // Ten minutes after signing: rejected (signingTimeTooOld), and a receipt says so.
        let rejected = try await Self.runWithAndWithoutReceipt(Self.applePay(at: "2014-10-27T20:01:43Z"), key: key)
        #expect(rejected.code == 1)
        #expect(
            try Self.expectReceipt(rejected.stdout, key: key, flow: "applepay", submission: submission).payload["verdict"] as? String == "rejected")
    }

    /// `googlepay decrypt --receipt-key`: the real test token, accepted at its time; nothing of the card,
    /// the cryptogram or the messageId in the signed payload.
    @Test func googlePayDecryptReceipts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GooglePayVerifierTests/Vectors")
        let submission = vectors.appendingPathComponent("r2d2-ecv2-tokenized-card.json").path
        let arguments = [
            "googlepay", "decrypt", "--token", submission, "--merchant-id", "12345678901234567890",
            "--root-keys", vectors.appendingPathComponent("r2d2-google-root-keys-test.json").path,
            "--merchant-key", vectors.appendingPathComponent("r2d2-merchant-private-key.pem").path, "--at", "2020-07-17T15:34:27Z",
        ]
        let accepted = try await Self.runWithAndWithoutReceipt(arguments, key: key)
        #expect(accepted.code == 0)
        let payload = try Self.expectReceipt(accepted.stdout, key: key, flow: "googlepay", submission: submission).payload
        #expect(payload["protocol"] as? String == "ECv2")
        #expect((payload["payment"] as? [String: Any])?["merchantId"] as? String == "merchant:12345678901234567890")
        let signedText = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
        for secret in ["4895370012003478", "AgAAAAAABk4DWZ4C28yUQAAAAAA", "AH2EjtffDAl2Jrk2"] {
            #expect(!signedText.contains(secret), "\(secret)")
        }
    }

    @Test func webVerifyReceiptsWithACertificate() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let certificate = try scratch.write("receipt-cert.pem", try key.selfSignedPEM())
        let accepted = try await Self.runWithAndWithoutReceipt(try Self.web(scratch), key: key, extra: ["--receipt-cert", certificate])
        #expect(accepted.code == 0)
        let (jws, payload) = try Self.expectReceipt(accepted.stdout, key: key, flow: "web", submission: Self.webResponse)
        #expect(payload["protocol"] as? String == "org-iso-mdoc")
        #expect(payload["testOnly"] as? Bool == true)
        // The certificate travels as x5c, and verifies the receipt.
        let headerBytes = try #require(Data(base64URLDecoding: String(jws.split(separator: ".")[0])))
        let header = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        #expect(header["typ"] as? String == "wallet-verifier-receipt+jwt")
        #expect((header["x5c"] as? [String])?.count == 1)
        let leaf = try Certificate(pemEncoded: try key.selfSignedPEM())
        #expect(try ReceiptVerifier.verify(jws, certificate: leaf).keyID == key.signer.keyID)

        let rejected = try await Self.runWithAndWithoutReceipt(try Self.web(scratch, policy: "production"), key: key)
        #expect(rejected.code == 1)
        #expect(
            try Self.expectReceipt(rejected.stdout, key: key, flow: "web", submission: Self.webResponse).payload["verdict"] as? String == "rejected")
    }

    /// An OpenID4VP answer through a session: the receipt names the protocol; a key that cannot be
    /// read stops the command before the session is used.
    @Test func webVerifyOpenID4VPReceiptAndAnUnreadableKeyLeavesTheSession() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let recipient = try scratch.write("recipient.pem", P256.KeyAgreement.PrivateKey().pemRepresentation)
        let sessionPath = scratch.path("session.json")
        let request = await WalletVerifierCommand.runCapturing(
            WebOpenID4VPCommandTests.requestArguments(scratch, key: recipient, session: sessionPath))
        #expect(request.code == 0, "\(request.stderr)")
        let entry = try #require(try WebOpenID4VPCommandTests.openID4VP(try json(request.stdout)))
        let pki = try PassportPKI()
        let iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        let responsePath = try scratch.write("credential.json", try WebOpenID4VPCommandTests.answer(entry.protocolName, entry.object, pki: pki))
        let verify = [
            "web", "verify", "--response", responsePath, "--session", sessionPath, "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)",
            "--at", WebOpenID4VPCommandTests.at, "--revocation", "off", "--format", "json",
        ]
        let notAKey = try scratch.write("not-a-key.pem", "hello")
        let refused = await WalletVerifierCommand.runCapturing(verify + ["--receipt-key", notAKey])
        #expect(refused.code == 2)
        #expect(refused.stderr.contains(notAKey))
        #expect(refused.stdout.isEmpty)

        let first = await WalletVerifierCommand.runCapturing(verify + ["--receipt-key", key.path])
        #expect(first.code == 0, "\(first.stdout)\(first.stderr)")
        let payload = try Self.expectReceipt(first.stdout, key: key, flow: "web", submission: responsePath).payload
        #expect(payload["protocol"] as? String == "openid4vp-v1-unsigned")
        #expect(check(try json(first.stdout), "replay.nonce")?["status"] as? String == "passed")

        // The session is used now: a replay is rejected, with a receipt too.
        let again = await WalletVerifierCommand.runCapturing(verify + ["--receipt-key", key.path])
        #expect(again.code == 1)
        #expect(try Self.expectReceipt(again.stdout, key: key, flow: "web", submission: responsePath).payload["verdict"] as? String == "rejected")
    }

    // MARK: - Text output

    @Test func textOutputGainsTwoLinesAndIsOtherwiseUnchanged() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        for arguments in [Self.mdoc(), Self.identity(), Self.applePay(), try Self.web(scratch), Self.mdoc(at: "2026-11-21T00:00:00Z")] {
            let plain = await WalletVerifierCommand.runCapturing(arguments)
            #expect(!plain.stdout.contains("receipt"))
            let signed = await WalletVerifierCommand.runCapturing(arguments + ["--receipt-key", key.path])
            #expect(signed.code == plain.code)
            #expect(signed.stdout.hasPrefix(plain.stdout), "\(arguments[0])")
            let added = signed.stdout.dropFirst(plain.stdout.count).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(added.count == 4, "\(added)")
            guard added.count == 4 else { continue }
            #expect(added[0].isEmpty && added[3].isEmpty)
            let verified = try ReceiptVerifier.verify(String(added[2]), jwks: key.jwks)
            #expect(added[1] == "receipt: " + (verified.claims["jti"]?.string ?? "?"))
        }
    }

    // MARK: - Bad keys

    @Test func receiptKeysThatCannotBeUsedAreUsageErrors() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let notAKey = try scratch.write("not-a-key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        for arguments in [Self.mdoc(), Self.identity(), Self.applePay(), try Self.web(scratch)] {
            let result = await WalletVerifierCommand.runCapturing(arguments + ["--receipt-key", notAKey, "--format", "json"])
            #expect(result.code == 2, "\(arguments[0])")
            #expect(result.stderr.contains("--receipt-key \(notAKey)"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let missing = scratch.path("missing.pem")
        let absent = await WalletVerifierCommand.runCapturing(Self.mdoc() + ["--receipt-key", missing])
        #expect(absent.code == 2)
        #expect(absent.stderr.contains(missing))

        // A P-384 key is not a receipt key; nor is a certificate of another key.
        let p384 = try scratch.write("p384.pem", P384.Signing.PrivateKey().pemRepresentation)
        #expect(await WalletVerifierCommand.runCapturing(Self.mdoc() + ["--receipt-key", p384]).code == 2)
        let key = try Key(scratch), other = try Key(scratch, name: "other")
        let otherCertificate = try scratch.write("other.pem", try other.selfSignedPEM())
        let mismatch = await WalletVerifierCommand.runCapturing(Self.mdoc() + ["--receipt-key", key.path, "--receipt-cert", otherCertificate])
        #expect(mismatch.code == 2)
        #expect(mismatch.stderr.contains(otherCertificate))

        // --receipt-cert and --receipt-issuer need a key.
        #expect(await WalletVerifierCommand.runCapturing(Self.mdoc() + ["--receipt-cert", otherCertificate]).code == 2)
        #expect(await WalletVerifierCommand.runCapturing(Self.mdoc() + ["--receipt-issuer", "https://verifier.example"]).code == 2)
    }

    // MARK: - receipt verify

    /// A receipt of the Annex D DeviceResponse, signed by `key` (with its certificate when `certificate`).
    static func issueReceipt(_ scratch: Scratch, key: Key, certificate: String? = nil) async throws -> String {
        var arguments = Self.mdoc() + ["--format", "json", "--receipt-key", key.path]
        if let certificate { arguments += ["--receipt-cert", certificate] }
        let result = await WalletVerifierCommand.runCapturing(arguments)
        #expect(result.code == 0, "\(result.stderr)")
        return try #require(try json(result.stdout)["receipt"] as? String)
    }

    @Test func receiptVerifyWithTheJWKSOrTheCertificate() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let certificatePEM = try key.selfSignedPEM()
        let certificate = try scratch.write("receipt-cert.pem", certificatePEM)
        let jws = try await Self.issueReceipt(scratch, key: key, certificate: certificate)
        let receipt = try scratch.write("receipt.jws", "\n  " + jws + "\n")

        let withJWKS = await WalletVerifierCommand.runCapturing([
            "receipt", "verify", "--receipt", receipt, "--jwks", key.jwksPath, "--format", "json",
        ])
        #expect(withJWKS.code == 0, "\(withJWKS.stderr)")
        let payload = try json(withJWKS.stdout)
        let signed = try ReceiptVerifier.verify(jws, jwks: key.jwks)
        #expect(payload["jti"] as? String == signed.claims["jti"]?.string)
        #expect(payload["flow"] as? String == "mdoc")
        #expect(withJWKS.stdout.contains("\n  \"iat\": "))
        // In the order signed.
        let names = ["iat", "jti", "flow", "time", "verdict", "checks", "submission"]
        let positions = names.compactMap { withJWKS.stdout.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.count == names.count && positions == positions.sorted())

        let withCertificate = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--cert", certificate])
        #expect(withCertificate.code == 0, "\(withCertificate.stderr)")
        #expect(withCertificate.stdout.contains("kid \(key.signer.keyID)"))
        #expect(withCertificate.stdout.contains("flow     mdoc"))
        #expect(withCertificate.stdout.contains("verdict  accepted"))
        let checkCount = try #require(signed.claims["checks"]?.array?.count)
        #expect(withCertificate.stdout.contains("checks   \(checkCount)\n"))
        #expect(withCertificate.stdout.contains("payload:\n{\n"))

        // A DER certificate works too.
        var serializer = DER.Serializer()
        try serializer.serialize(try Certificate(pemEncoded: certificatePEM))
        let der = try scratch.write("receipt-cert.der", serializer.serializedBytes)
        #expect(await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--cert", der]).code == 0)
    }

    @Test func receiptVerifyRejectsChangedPayloadsAndUnknownKeys() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch), other = try Key(scratch, name: "other")
        let jws = try await Self.issueReceipt(scratch, key: key)
        let parts = jws.split(separator: ".").map(String.init)
        #expect(parts.count == 3)

        // The verdict changed after signing.
        let payload = String(decoding: try #require(Data(base64URLDecoding: parts[1])), as: UTF8.self)
        #expect(payload.contains("\"verdict\":\"accepted\""))
        let changed = payload.replacingOccurrences(of: "\"verdict\":\"accepted\"", with: "\"verdict\":\"rejected\"")
        let forged = try scratch.write("forged.jws", [parts[0], Self.base64URL(Array(changed.utf8)), parts[2]].joined(separator: "."))
        let tampered = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", forged, "--jwks", key.jwksPath])
        #expect(tampered.code == 1)
        #expect(tampered.stderr.contains("signature"), "\(tampered.stderr)")
        #expect(tampered.stdout.isEmpty)

        let receipt = try scratch.write("receipt.jws", jws)
        let unknown = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--jwks", other.jwksPath])
        #expect(unknown.code == 1)
        #expect(unknown.stderr.contains(key.signer.keyID))
        let otherCertificate = try scratch.write("other.pem", try other.selfSignedPEM())
        #expect(await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--cert", otherCertificate]).code == 1)
    }

    /// A forged header whose kid carries line breaks cannot print lines of its own (the attack read
    /// "receipt verifies … verdict accepted" under the error).
    @Test func aForgedKidCannotWriteLinesToTheTerminal() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let parts = try await Self.issueReceipt(scratch, key: key).split(separator: ".").map(String.init)
        // The kid, JSON-escaped: line breaks, a carriage return and a terminal escape sequence.
        let header = #"{"alg":"ES256","typ":"wallet-verifier-receipt+jwt","kid":"x\nreceipt verifies: kid x\n  verdict  accepted\r\u001b[2K"}"#
        let forged = try scratch.write("forged.jws", [Self.base64URL(Array(header.utf8)), parts[1], parts[2]].joined(separator: "."))
        let result = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", forged, "--jwks", key.jwksPath])
        #expect(result.code == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // One line of error, the kid's line breaks and escape shown as text.
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1b}"), "\(result.stderr)")
        #expect(lines.first?.hasPrefix("error: the receipt does not verify") == true)
    }

    /// `--issuer` holds a receipt to the service that should have issued it: a valid signature under
    /// another `iss` (or none) is refused.
    @Test func receiptVerifyChecksTheIssuer() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let issued = await WalletVerifierCommand.runCapturing(
            Self.mdoc() + ["--format", "json", "--receipt-key", key.path, "--receipt-issuer", "https://verifier-a.example"])
        let named = try scratch.write("named.jws", try #require(try json(issued.stdout)["receipt"] as? String))
        let unnamed = try scratch.write("unnamed.jws", try await Self.issueReceipt(scratch, key: key))
        func verify(_ receipt: String, _ issuer: String) async -> (code: Int32, stderr: String) {
            let result = await WalletVerifierCommand.runCapturing([
                "receipt", "verify", "--receipt", receipt, "--jwks", key.jwksPath, "--issuer", issuer,
            ])
            return (result.code, result.stderr)
        }
        #expect(await verify(named, "https://verifier-a.example").code == 0)
        let other = await verify(named, "https://verifier-b.example")
        #expect(other.code == 1)
        #expect(other.stderr.contains("names \"https://verifier-a.example\", not the issuer \"https://verifier-b.example\""), "\(other.stderr)")
        let none = await verify(unnamed, "https://verifier-a.example")
        #expect(none.code == 1)
        #expect(none.stderr.contains("names no iss"), "\(none.stderr)")
    }

    @Test func receiptVerifyUnreadableInput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let garbage = try scratch.write("garbage.jws", "this is not a receipt")
        let notJWS = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", garbage, "--jwks", key.jwksPath])
        #expect(notJWS.code == 2)
        #expect(notJWS.stderr.contains("compact JWS"))

        let missing = scratch.path("missing.jws")
        let absent = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", missing, "--jwks", key.jwksPath])
        #expect(absent.code == 2)
        #expect(absent.stderr.contains(missing))

        let receipt = try scratch.write("receipt.jws", try await Self.issueReceipt(scratch, key: key))
        let notJWKS = try scratch.write("not-jwks.json", "[1, 2]")
        #expect(await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--jwks", notJWKS]).code == 2)
        #expect(await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--jwks", scratch.path("none.json")]).code == 2)
        #expect(await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--cert", garbage]).code == 2)
        // Plain http is fetched only from a loopback address; the address is refused without a connection.
        let plain = await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--jwks", "http://verifier.example/jwks"])
        #expect(plain.code == 2)
        #expect(plain.stderr.contains("only https"))
        // One of --jwks and --cert, not both or neither.
        #expect(await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt]).code == 2)
        #expect(
            await WalletVerifierCommand.runCapturing(["receipt", "verify", "--receipt", receipt, "--jwks", key.jwksPath, "--cert", garbage]).code == 2
        )
    }

    /// `--receipt -` reads standard input: the real binary, next to the test bundle, with a pipe.
    @Test func receiptVerifyReadsStandardInput() async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-verifier")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            Issue.record("wallet-verifier executable not found at \(binary.path)")
            return
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let jws = try await Self.issueReceipt(scratch, key: key)
        func run(input text: String) throws -> (status: Int32, stdout: String) {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["receipt", "verify", "--receipt", "-", "--jwks", key.jwksPath, "--format", "json"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = Pipe()
            try process.run()
            input.fileHandleForWriting.write(Data(text.utf8))
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let good = try run(input: jws + "\n")
        #expect(good.status == 0)
        #expect(try json(good.stdout)["jti"] as? String == (try ReceiptVerifier.verify(jws, jwks: key.jwks).claims["jti"]?.string))
        #expect(try run(input: "garbage").status == 2)
    }

    @Test func receiptVerifyFetchesTheJWKS() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try Key(scratch)
        let receipt = try scratch.write("receipt.jws", try await Self.issueReceipt(scratch, key: key))
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/v1/receipts/jwks", .init(body: key.jwks, headers: [("Content-Type", "application/json")]))
        server.set("/huge", .init(body: Array(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)))
        let fetched = await WalletVerifierCommand.runCapturing([
            // A generous deadline: the whole suite runs at once, on a machine that may be busy.
            "receipt", "verify", "--receipt", receipt, "--jwks", server.url("/v1/receipts/jwks"), "--fetch-timeout", "60", "--format", "json",
        ])
        #expect(fetched.code == 0, "\(fetched.stderr)")
        #expect(try json(fetched.stdout)["flow"] as? String == "mdoc")
        #expect(server.requestedPaths == ["/v1/receipts/jwks"])

        let tooLarge = await WalletVerifierCommand.runCapturing([
            "receipt", "verify", "--receipt", receipt, "--jwks", server.url("/huge"), "--fetch-timeout", "60",
        ])
        #expect(tooLarge.code == 2)
        #expect(tooLarge.stderr.contains("1048576"), "\(tooLarge.stderr)")
        let notFound = await WalletVerifierCommand.runCapturing([
            "receipt", "verify", "--receipt", receipt, "--jwks", server.url("/nothing"), "--fetch-timeout", "60",
        ])
        #expect(notFound.code == 2)
        #expect(notFound.stderr.contains("could not be fetched"))
    }
}

extension Data {
    /// Decodes base64url without padding.
    fileprivate init?(base64URLDecoding text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
