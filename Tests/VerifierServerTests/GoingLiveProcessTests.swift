import Crypto
import Foundation
import Mdoc
import Testing
import WalletEncoding
import WalletVerifierTestSupport
import X509

/// docs/going-live.md, walked as a new integrator would, with the real binary and no openssl: `keys new`
/// for Apple Pay and the in-app identity key, certificates from a stand-in portal CA, `keys import`,
/// `serve --check`, then `serve` — and an Apple Pay token and an identity response made for those
/// keys are accepted.
@Suite(.serialized) struct GoingLiveProcessTests {
    /// Runs `wallet-verifier ARGUMENTS` to its end (60 s at most).
    static func run(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
        try await CommandProcess.run(arguments)
    }

    @Test func fromKeysNewToAcceptedVerdicts() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = fixture.directory.appendingPathComponent("keys").path
        let (merchantID, teamID) = ("merchant.com.example.live", "TEAMLIVE01")
        let portal = try PortalFixtureCA(now: Date())
        let (notBefore, notAfter) = (Date().addingTimeInterval(-86_400), Date().addingTimeInterval(365 * 86_400))

        // 1. Keys and CSRs, certificates from the portal, imported.
        for kind in ["applepay", "identity"] {
            let made = try await Self.run(["keys", "new", "--for", kind, "--out", keys])
            #expect(made.status == 0, "\(made.output)")
        }
        func csr(_ kind: String) throws -> String { try String(contentsOfFile: "\(keys)/\(kind).csr.pem", encoding: .utf8) }
        let applePayLeaf = try portal.issue(
            csrPEM: try csr("applepay"), profile: .applePayProcessing(merchantIdentifier: merchantID), notBefore: notBefore, notAfter: notAfter)
        let identityLeaf = try portal.issue(csrPEM: try csr("identity"), profile: .identityEncryption, notBefore: notBefore, notAfter: notAfter)
        let downloads = fixture.directory.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try Data(try PortalFixtureCA.der(applePayLeaf)).write(to: downloads.appendingPathComponent("apple_pay.cer"))
        try Data(try portal.chainPEM(identityLeaf).utf8).write(to: downloads.appendingPathComponent("identity.pem"))
        let importedApplePay = try await Self.run([
            "keys", "import", "--certificate", downloads.appendingPathComponent("apple_pay.cer").path, "--key", "\(keys)/applepay.key.pem",
            "--out", keys, "--merchant-id", merchantID,
        ])
        #expect(importedApplePay.status == 0, "\(importedApplePay.output)")
        let importedIdentity = try await Self.run([
            "keys", "import", "--certificate", downloads.appendingPathComponent("identity.pem").path, "--key", "\(keys)/identity.key.pem",
            "--out", keys,
        ])
        #expect(importedIdentity.status == 0, "\(importedIdentity.output)")

        // 2. The configuration, checked before it runs.
        let applePayRoot = fixture.applePayRootPath
        let flags = [
            "--identity-key", "\(keys)/identity.key.pem", "--merchant-id", merchantID, "--team-id", teamID, "--trust", fixture.iacaPath,
            "--applepay-cert", "\(keys)/applepay.cert.pem", "--applepay-key", "\(keys)/applepay.key.pem", "--applepay-root", applePayRoot,
            "--revocation", "off", "--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path,
        ]
        // The test Apple Pay root standing in for Apple's is the one thing the production gate
        // refuses here; a developer's machine may keep it.
        let gate = try await Self.run(["serve", "--check", "--format", "json"] + flags)
        #expect(gate.status == 1, "\(gate.output)")
        let failed = (try JSONSerialization.jsonObject(with: Data(gate.output.utf8)) as? [[String: String]])?.filter { $0["status"] == "fail" }
        #expect(failed?.map { $0["check"] ?? "" } == ["applepay-root"], "\(gate.output)")
        #expect(failed?.first?["message"]?.contains("--development") == true)
        let check = try await Self.run(["serve", "--check", "--development"] + flags)
        #expect(check.status == 0, "\(check.output)")

        // 3. The service, and what wallets hand over for these keys.
        let service = try await ServiceInstance(arguments: flags)
        defer { service.stop() }
        let keyPEM = try String(contentsOfFile: "\(keys)/applepay.key.pem", encoding: .utf8)
        let merchant = try ApplePayFixtureMerchant(
            merchantIdentifier: merchantID, key: .ec(try P256.KeyAgreement.PrivateKey(pemRepresentation: keyPEM)), certificate: applePayLeaf)
        let token = try ApplePayTokenBuilder(merchant: merchant, signingTime: Date()).build().json(asPKPaymentToken: true)
        let paid = try await service.post(
            "/v1/applepay/decrypt", ["token": try JSONSerialization.jsonObject(with: Data(token)), "expect": ["currency": "840", "amount": 1999]])
        #expect(paid.body["verdict"] as? String == "accepted", "\(paid.body)")

        let request = try await DeploymentTests.createRequest(on: service)
        let recipient = try P256.KeyAgreement.PublicKey(
            x963Representation: try #require(P256.Signing.PublicKey(identityLeaf.publicKey)).x963Representation)
        let transcript = IdentityEnvelopeFixture.transcript(nonce: request.nonce, merchantID: merchantID, teamID: teamID, recipient: recipient)
        let response = try DeploymentTests.currentFixture().deviceResponse(
            pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: recipient, nonce: request.nonce, merchantID: merchantID, teamID: teamID)
        let verified = try await service.post(
            "/v1/identity/verify", ["requestId": request.id, "encryptedData": Data(envelope).base64EncodedString()])
        #expect(verified.body["verdict"] as? String == "accepted", "\(verified.body)")
    }
}
