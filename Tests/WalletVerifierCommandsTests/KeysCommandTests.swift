import ApplePayVerifier
import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import Testing
import WalletEncoding
import WalletIdentity
import WalletJOSE
import WalletVerifierCommands
import WalletVerifierTestSupport
import X509

/// `wallet-verifier keys new` and `keys import`, run in-process against certificates a fixture
/// portal issues from the CSRs the command wrote.
@Suite struct KeysCommandTests {
    /// The time imports are run at (`--now`), an hour before the Apple Pay fixture tokens are signed.
    static let now = ApplePayFixturePKI.epoch
    static let nowText = RFC3339.format(now)
    static let merchantID = "merchant.com.example.keys"

    /// `keys new --for KIND --out DIR`, which must succeed; the paths of the key and the CSR.
    static func newKey(_ kind: String, in directory: String, extra: [String] = []) async throws -> (key: String, csr: String, stdout: String) {
        let result = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", kind, "--out", directory] + extra)
        try #require(result.code == 0, "\(result.stderr)")
        return (directory + "/\(kind).key.pem", directory + "/\(kind).csr.pem", result.stdout)
    }

    /// `keys import` at ``now`` with JSON output.
    static func importJSON(certificate: String, key: String, out: String, extra: [String] = []) async -> (
        code: Int32, stdout: String, stderr: String
    ) {
        await WalletVerifierCommand.runCapturing(
            ["keys", "import", "--certificate", certificate, "--key", key, "--out", out, "--now", nowText, "--format", "json"] + extra)
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func mode(_ path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    static func spkiSHA256(_ publicKey: Certificate.PublicKey) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(publicKey)
        return Hex.encode(SHA256.hash(data: serializer.serializedBytes))
    }

    // MARK: keys new

    /// A Google Pay key has no certificate: the key alone, the public key to register, and a key that
    /// decrypts tokens encrypted for that public key.
    @Test func newForGooglePayWritesTheKeyAndPrintsItsPublicKey() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.path("keys")
        let result = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "googlepay", "--out", directory])
        #expect(result.code == 0, "\(result.stderr)")
        let keyPath = directory + "/googlepay.key.pem"
        #expect(try Self.mode(keyPath) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: directory + "/googlepay.csr.pem"))
        let key = try P256.KeyAgreement.PrivateKey(pemRepresentation: try Self.text(keyPath))
        #expect(try Self.text(keyPath).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(
            result.stdout.contains(
                "public key to register with Google (base64, uncompressed point): " + Base64.encode(key.publicKey.x963Representation)))
        #expect(result.stdout.contains("serve with: --googlepay-key " + keyPath))
        #expect(!result.stdout.contains("keys import"))

        // The key decrypts a token encrypted for the public key it printed.
        let fixture = GooglePayFixtureKeys()
        let time = Date(timeIntervalSince1970: 1_780_000_000)
        var builder = GooglePayTokenBuilder(keys: fixture, validAt: time)
        builder.encryptFor = key.publicKey
        let token = try builder.build()
        try Data(token.json).write(to: URL(fileURLWithPath: scratch.path("token.json")))
        try Data(fixture.rootKeyListJSON(expiration: time.addingTimeInterval(86_400))).write(to: URL(fileURLWithPath: scratch.path("roots.json")))
        let decrypt = await WalletVerifierCommand.runCapturing([
            "googlepay", "decrypt", "--token", scratch.path("token.json"), "--merchant-id", "12345678901234567890",
            "--root-keys", scratch.path("roots.json"), "--merchant-key", keyPath, "--at", "2026-05-28T20:26:40Z",
        ])
        #expect(decrypt.code == 0, "\(decrypt.stdout)")

        // No subject (there is no CSR), and never over an existing key.
        let withSubject = await WalletVerifierCommand.runCapturing([
            "keys", "new", "--for", "googlepay", "--out", scratch.path("other"), "--subject", "CN=x",
        ])
        #expect(withSubject.code == 2)
        #expect(withSubject.stderr.contains("--subject"))
        let again = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "googlepay", "--out", directory])
        #expect(again.code == 2)
        #expect(again.stderr.contains("exists already"))
    }

    @Test(arguments: ["identity", "applepay", "applepay-rsa", "merchant-identity", "web-reader", "openid4vp-signing", "receipts"])
    func newWritesAPKCS8KeyAndACSRSignedByIt(kind: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // DIR does not exist yet: it is created.
        let directory = scratch.path("keys/\(kind)")
        let made = try await Self.newKey(kind, in: directory)
        #expect(try Self.mode(made.key) == 0o600)
        let keyPEM = try Self.text(made.key)
        #expect(keyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let csr = try CertificateSigningRequest(pemEncoded: try Self.text(made.csr))
        #expect(csr.publicKey.isValidSignature(csr.signature, for: csr))
        #expect("\(csr.subject)" == "CN=wallet-verifier \(kind)")
        if kind == "applepay-rsa" || kind == "merchant-identity" {
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: keyPEM)
            #expect(key.keySizeInBits == 2048)
            #expect(csr.publicKey == Certificate.PublicKey(key.publicKey))
            #expect(csr.signatureAlgorithm == .sha256WithRSAEncryption)
        } else {
            let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
            #expect(csr.publicKey == Certificate.PublicKey(key.publicKey))
            #expect(csr.signatureAlgorithm == .ecdsaWithSHA256)
        }
        // The next step: the portal, and the import command with this key and directory.
        let portal = [
            "identity": "Apple Developer portal", "applepay": "Apple Pay Payment Processing Certificate",
            "applepay-rsa": "China mainland", "web-reader": "Apple Business", "openid4vp-signing": "1.3.6.1.4.1.11129.10.1",
            "receipts": "/v1/receipts/jwks", "merchant-identity": "Apple Pay Merchant Identity Certificate",
        ][kind]!
        #expect(made.stdout.contains(portal), "\(made.stdout)")
        #expect(made.stdout.contains("wallet-verifier keys import --certificate CERTIFICATE_FILE --key \(made.key) --out \(directory)"))
        #expect(made.stdout.contains("public key SHA-256 (SubjectPublicKeyInfo): \(try Self.spkiSHA256(csr.publicKey))"))
        #expect(!made.stdout.contains(keyPEM.split(separator: "\n")[1]))
    }

    @Test func newNeverOverwritesAndChecksBothFilesFirst() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let made = try await Self.newKey("identity", in: scratch.url.path)
        let keyBefore = try Self.text(made.key)
        let again = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "identity", "--out", scratch.url.path])
        #expect(again.code == 2)
        #expect(again.stderr.contains(made.key) && again.stderr.contains("exists already"), "\(again.stderr)")
        #expect(try Self.text(made.key) == keyBefore)
        // Only the CSR is left: the key is not written either.
        try FileManager.default.removeItem(atPath: made.key)
        let csrOnly = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "identity", "--out", scratch.url.path])
        #expect(csrOnly.code == 2)
        #expect(csrOnly.stderr.contains(made.csr))
        #expect(!FileManager.default.fileExists(atPath: made.key))
        // --out naming a file.
        let file = try scratch.write("a-file", "x")
        let onAFile = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "identity", "--out", file])
        #expect(onAFile.code == 2)
        #expect(onAFile.stderr.contains("is a file, not a directory"))
    }

    @Test func newTakesASubjectInRFC4514Order() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let made = try await Self.newKey(
            "web-reader", in: scratch.url.path, extra: ["--subject", #"CN=shop.example reader,OU=Web,O=Example\, Inc.,L=Springfield,ST=IL,C=US"#])
        let csr = try CertificateSigningRequest(pemEncoded: try Self.text(made.csr))
        #expect("\(csr.subject)" == #"CN=shop.example reader,OU=Web,O=Example\, Inc.,L=Springfield,ST=IL,C=US"#)
        // In the DER the country comes first, as RFC 4514 text lists the most specific name first.
        #expect(Array(csr.subject).first?.first?.type == .RDNAttributeType.countryName)
        for (bad, message) in [
            ("CN=x,E=admin@example.com", "\"E\" is not supported"), ("CN=x,C=USA", "two-letter"), ("CN", "is not TYPE=value"),
            ("CN=", "has no value"),
        ] {
            let result = await WalletVerifierCommand.runCapturing([
                "keys", "new", "--for", "identity", "--out", scratch.path("bad"), "--subject", bad,
            ])
            #expect(result.code == 2, "\(bad)")
            #expect(result.stderr.contains(message), "\(bad): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("bad")))
        #expect(await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "passkey", "--out", scratch.path("x")]).code == 2)
    }

    // MARK: keys import

    @Test func applePayProcessingCertificateFromDER() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.url.path
        let made = try await Self.newKey("applepay", in: directory)
        let portal = try PortalFixtureCA()
        let leaf = try portal.issue(
            csrPEM: try Self.text(made.csr), profile: .applePayProcessing(merchantIdentifier: Self.merchantID),
            notBefore: Self.now.addingTimeInterval(-86_400), notAfter: Self.now.addingTimeInterval(100 * 86_400 + 3600))
        let cer = try scratch.write("apple_pay.cer", try PortalFixtureCA.der(leaf))

        let wrongMerchant = await Self.importJSON(certificate: cer, key: made.key, out: directory, extra: ["--merchant-id", "merchant.com.other"])
        #expect(wrongMerchant.code == 2)
        #expect(wrongMerchant.stderr.contains("merchant.com.other") && wrongMerchant.stderr.contains("does not match"), "\(wrongMerchant.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/applepay.cert.pem"))

        let result = await Self.importJSON(certificate: cer, key: made.key, out: directory, extra: ["--merchant-id", Self.merchantID])
        #expect(result.code == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["kind"] as? String == "applepay")
        let certificatePath = directory + "/applepay.cert.pem"
        // The hash tokens carry, as the Apple Pay verifier computes it from the files written.
        let verifierKey = try MerchantKey(
            certificateFile: Array(try Self.text(certificatePath).utf8), privateKeyFile: Array(try Self.text(made.key).utf8),
            merchantIdentifier: Self.merchantID)
        #expect(object["publicKeyHash"] as? String == verifierKey.publicKeyHash)
        #expect(
            object["publicKeyHash"] as? String
                == (try ApplePayFixtureMerchant(merchantIdentifier: Self.merchantID, key: .ec(.init()), certificate: leaf)).publicKeyHash)
        let certificate = try #require(object["certificate"] as? [String: Any])
        #expect(certificate["daysLeft"] as? Int == 100)
        #expect(certificate["subject"] as? String == "\(leaf.subject)")
        #expect(certificate["issuer"] as? String == "CN=Fixture Portal Issuing CA,O=Fixture Portal,C=US")
        #expect(certificate["notAfter"] as? String == RFC3339.format(leaf.notValidAfter))
        #expect(object["serveFlags"] as? [String] == ["--applepay-cert", certificatePath, "--applepay-key", made.key])
        // The key was in DIR already: only the certificate is written, as PEM.
        #expect(object["written"] as? [String] == [certificatePath])
        #expect(try Certificate(pemEncoded: try Self.text(certificatePath)) == leaf)
        #expect(!result.stdout.contains(try Self.text(made.key).split(separator: "\n")[1]))

        // A second import would overwrite the certificate.
        let again = await Self.importJSON(certificate: cer, key: made.key, out: directory)
        #expect(again.code == 2)
        #expect(again.stderr.contains(certificatePath))

        // Text: the days left and the serve flags.
        let other = scratch.path("text")
        let text = await WalletVerifierCommand.runCapturing([
            "keys", "import", "--certificate", cer, "--key", made.key, "--out", other, "--now", Self.nowText,
        ])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(text.stdout.contains("(100 days left)"))
        #expect(
            text.stdout.split(separator: "\n").contains { $0.hasPrefix("publicKeyHash ") && $0.contains(verifierKey.publicKeyHash) }, "\(text.stdout)"
        )
        #expect(text.stdout.contains("serve with: --applepay-cert \(other)/applepay.cert.pem --applepay-key \(other)/applepay.key.pem"))
        // The key was elsewhere: copied into DIR, PKCS#8, mode 0600, the same key.
        #expect(try Self.mode(other + "/applepay.key.pem") == 0o600)
        #expect(
            try P256.Signing.PrivateKey(pemRepresentation: try Self.text(other + "/applepay.key.pem")).rawRepresentation
                == P256.Signing.PrivateKey(pemRepresentation: try Self.text(made.key)).rawRepresentation)
    }

    /// A real Apple Pay Payment Processing certificate (SeatGeek, 2014, with its key): recognised by its
    /// extension, its publicKeyHash is the one its real token carries, the merchant id in its UID is
    /// checked, and at the token's time it had 758 days left; today it has expired (a warning).
    @Test func realApplePayCertificate() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let vector = "applepay/seatgeek-2014-ec/"
        let token = try json(try Self.text(TestVectors.path(vector + "token.json")))
        let header = try #require(token["header"] as? [String: Any])
        let arguments = [
            "keys", "import", "--certificate", TestVectors.path(vector + "certificate.pem"), "--key", TestVectors.path(vector + "private_key.pem"),
            "--merchant-id", "merchant.com.seatgeek.SeatGeek", "--format", "json",
        ]
        let result = await WalletVerifierCommand.runCapturing(arguments + ["--out", scratch.path("then"), "--now", "2014-10-27T19:52:43Z"])
        #expect(result.code == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["kind"] as? String == "applepay")
        #expect(object["publicKeyHash"] as? String == header["publicKeyHash"] as? String)
        #expect((object["certificate"] as? [String: Any])?["daysLeft"] as? Int == 758)
        #expect(object["warnings"] as? [String] == [])
        #expect(object["written"] as? [String] == [scratch.path("then") + "/applepay.cert.pem", scratch.path("then") + "/applepay.key.pem"])
        let today = await WalletVerifierCommand.runCapturing(arguments + ["--out", scratch.path("today")])
        #expect(today.code == 0, "\(today.stderr)")
        #expect((try json(today.stdout)["warnings"] as? [String])?.first?.contains("the certificate expired") == true)
        let otherMerchant = await WalletVerifierCommand.runCapturing(
            [
                "keys", "import", "--certificate", TestVectors.path(vector + "certificate.pem"), "--key",
                TestVectors.path(vector + "private_key.pem"),
                "--merchant-id", "merchant.com.example", "--out", scratch.path("other"),
            ])
        #expect(otherMerchant.code == 2)
        #expect(otherMerchant.stderr.contains("does not match"))
    }

    /// The merchant id in clear in the subject (CN `Merchant ID: <id>`) must be --merchant-id's too.
    @Test func merchantIdInTheSubjectIsChecked() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let made = try await Self.newKey("applepay", in: scratch.url.path, extra: ["--subject", "CN=Merchant ID: merchant.com.other,C=US"])
        let leaf = try PortalFixtureCA().issue(
            csrPEM: try Self.text(made.csr), profile: .applePayProcessing(merchantIdentifier: Self.merchantID, uid: false),
            notBefore: Self.now, notAfter: Self.now.addingTimeInterval(365 * 86_400))
        let cer = try scratch.write("apple_pay.cer", try PortalFixtureCA.der(leaf))
        let result = await Self.importJSON(certificate: cer, key: made.key, out: scratch.url.path, extra: ["--merchant-id", Self.merchantID])
        #expect(result.code == 2)
        #expect(result.stderr.contains("subject CN is \"Merchant ID: merchant.com.other\""), "\(result.stderr)")
        // Without --merchant-id the extension alone names the merchant.
        #expect(await Self.importJSON(certificate: cer, key: made.key, out: scratch.url.path).code == 0)
    }

    /// Every serve flag a flow needs, printed by keys new (placeholders in capitals).
    @Test func newPrintsEveryServeFlagOfTheFlow() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.path("keys")
        let google = try await Self.newKey("googlepay", in: directory)
        #expect(
            google.stdout.contains(
                "serve with: --googlepay-key \(google.key) --googlepay-merchant-id YOUR_GOOGLE_MERCHANT_ID --googlepay-root-keys https://payments.developers.google.com/paymentmethodtoken/keys.json"
            ), "\(google.stdout)")
        let identity = try await Self.newKey("identity", in: directory)
        #expect(
            identity.stdout.contains(
                "serve with: --identity-key \(identity.key) --identity-cert \(directory)/identity.cert.pem --merchant-id YOUR_MERCHANT_ID --team-id YOUR_TEAM_ID"
            ), "\(identity.stdout)")
        let merchant = try await Self.newKey("merchant-identity", in: directory)
        #expect(
            merchant.stdout.contains(
                "serve with: --applepay-identity-cert \(directory)/merchant-identity.cert.pem --applepay-identity-key \(merchant.key) --applepay-domain YOUR_DOMAIN --applepay-display-name YOUR_STORE_NAME"
            ), "\(merchant.stdout)")
    }

    /// The web key: a P-256 key alone (no CSR, nothing to register) that serve takes as --web-key.
    @Test func newForWebKeyWritesTheKeyAlone() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.path("keys")
        let result = await WalletVerifierCommand.runCapturing(["keys", "new", "--for", "web-key", "--out", directory])
        #expect(result.code == 0, "\(result.stderr)")
        let keyPath = directory + "/web-key.key.pem"
        #expect(try Self.mode(keyPath) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: directory + "/web-key.csr.pem"))
        _ = try P256.KeyAgreement.PrivateKey(pemRepresentation: try Self.text(keyPath))
        #expect(result.stdout.contains("serve with: --web-key \(keyPath) --web-origin https://YOUR_SITE"), "\(result.stdout)")
        #expect(!result.stdout.contains("keys import"))
        let check = await WalletVerifierCommand.runCapturing([
            "serve", "--check", "--format", "json", "--web-key", keyPath, "--web-origin", "https://shop.example", "--identity", "off",
            "--store", "memory", "--data-dir", scratch.path("data"), "--development",
        ])
        let findings = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: String]], "\(check.stderr)")
        #expect(findings.first { $0["check"] == "web-keys" }?["status"] == "ok", "\(findings)")
        let withSubject = await WalletVerifierCommand.runCapturing([
            "keys", "new", "--for", "web-key", "--out", scratch.path("x"), "--subject", "CN=x",
        ])
        #expect(withSubject.code == 2)
        let imported = await WalletVerifierCommand.runCapturing([
            "keys", "import", "--for", "web-key", "--certificate", keyPath, "--key", keyPath, "--out", directory,
        ])
        #expect(imported.code == 2)
        #expect(imported.stderr.contains("no certificate to import"), "\(imported.stderr)")
    }

    /// The Merchant Identity certificate for its own key: imported as merchant-identity, with every
    /// flag merchant validation needs, and serve --check takes the files.
    @Test func merchantIdentityIsImportedForItsOwnKey() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.url.path
        let made = try await Self.newKey("merchant-identity", in: directory)
        let now = Date()
        let leaf = try PortalFixtureCA(now: now).issue(
            csrPEM: try Self.text(made.csr), profile: .applePayMerchantIdentity(merchantIdentifier: Self.merchantID, hashExtension: true),
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(365 * 86_400))
        let cer = try scratch.write("merchant_id.cer", try PortalFixtureCA.der(leaf))
        let result = await WalletVerifierCommand.runCapturing([
            "keys", "import", "--certificate", cer, "--key", made.key, "--out", directory, "--format", "json",
        ])
        #expect(result.code == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["kind"] as? String == "merchant-identity")
        let flags = try #require(object["serveFlags"] as? [String])
        #expect(
            flags == [
                "--applepay-identity-cert", directory + "/merchant-identity.cert.pem", "--applepay-identity-key", made.key, "--applepay-domain",
                "YOUR_DOMAIN", "--applepay-display-name", "YOUR_STORE_NAME",
            ])
        #expect((object["merchantIdentifier"] as? String)?.isEmpty == false)
        let check = await WalletVerifierCommand.runCapturing(
            ["serve", "--check", "--format", "json", "--identity", "off", "--store", "memory", "--data-dir", scratch.path("data"), "--development"]
                + flags.map { $0 == "YOUR_DOMAIN" ? "shop.example" : $0 == "YOUR_STORE_NAME" ? "Shop" : $0 })
        let findings = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: String]], "\(check.stderr)")
        #expect(findings.first { $0["check"] == "applepay-identity" }?["status"] == "ok", "\(findings)")
        #expect(findings.first { $0["check"] == "applepay-identity-tls" }?["status"] == "ok", "\(findings)")
    }

    /// A certificate whose key usage allows several kinds: the name keys new gave the key, or --for,
    /// decides; a kind the certificate's markers contradict is refused.
    @Test func forSaysWhichKindAnAmbiguousCertificateIs() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let portal = try PortalFixtureCA()
        // An identity certificate with digitalSignature only, for a key named as keys new names the identity key.
        let identityDirectory = scratch.path("identity")
        let identity = try await Self.newKey("identity", in: identityDirectory)
        let signingLeaf = try portal.issue(
            csrPEM: try Self.text(identity.csr), profile: .signing, notBefore: Self.now, notAfter: Self.now.addingTimeInterval(90 * 86_400))
        let signingPEM = try scratch.write("identity-signing.pem", signingLeaf.serializeAsPEM().pemString)
        let byName = await Self.importJSON(
            certificate: signingPEM, key: identity.key, out: identityDirectory, extra: ["--merchant-id", "merchant.com.x"])
        #expect(byName.code == 0, "\(byName.stderr)")
        #expect(try json(byName.stdout)["kind"] as? String == "identity")
        #expect(
            try json(byName.stdout)["serveFlags"] as? [String] == [
                "--identity-key", identity.key, "--identity-cert", identityDirectory + "/identity.cert.pem", "--merchant-id", "merchant.com.x",
                "--team-id", "YOUR_TEAM_ID",
            ])
        #expect(!FileManager.default.fileExists(atPath: identityDirectory + "/web-reader.key.pem"))

        // The same kind of certificate for a key outside any keys new directory: --for decides.
        let loose = scratch.path("loose.pem")
        try Data(try Self.text(identity.key).utf8).write(to: URL(fileURLWithPath: loose))
        let guessed = await Self.importJSON(certificate: signingPEM, key: loose, out: scratch.path("guessed"))
        #expect(try json(guessed.stdout)["kind"] as? String == "web-reader")
        let told = await Self.importJSON(certificate: signingPEM, key: loose, out: scratch.path("told"), extra: ["--for", "identity"])
        #expect(told.code == 0, "\(told.stderr)")
        #expect(try json(told.stdout)["kind"] as? String == "identity")
        #expect(FileManager.default.fileExists(atPath: scratch.path("told") + "/identity.key.pem"))

        // A kind the certificate contradicts.
        let applePay = try await Self.newKey("applepay", in: scratch.path("applepay"))
        let processing = try portal.issue(
            csrPEM: try Self.text(applePay.csr), profile: .applePayProcessing(merchantIdentifier: Self.merchantID), notBefore: Self.now,
            notAfter: Self.now.addingTimeInterval(90 * 86_400))
        let processingPEM = try scratch.write("processing.pem", processing.serializeAsPEM().pemString)
        let wrong = await Self.importJSON(certificate: processingPEM, key: applePay.key, out: scratch.path("applepay"), extra: ["--for", "identity"])
        #expect(wrong.code == 2)
        #expect(wrong.stderr.contains("1.2.840.113635.100.6.32"), "\(wrong.stderr)")
    }

    @Test func merchantIdentityCertificateIsRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let made = try await Self.newKey("applepay", in: scratch.url.path)
        let leaf = try PortalFixtureCA().issue(
            csrPEM: try Self.text(made.csr), profile: .applePayMerchantIdentity(merchantIdentifier: Self.merchantID),
            notBefore: Self.now, notAfter: Self.now.addingTimeInterval(365 * 86_400))
        let cer = try scratch.write("merchant_id.cer", try PortalFixtureCA.der(leaf))
        let result = await Self.importJSON(certificate: cer, key: made.key, out: scratch.url.path)
        #expect(result.code == 2)
        #expect(result.stderr.contains("1.2.840.113635.100.6.31"))
        #expect(result.stderr.contains("TLS client certificate for merchant validation"))
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("applepay.cert.pem")))
    }

    /// The extension decides, whatever the key file is called: a key made for web-reader with
    /// Google's relying-party certificate is an OpenID4VP request-signing key.
    @Test func googleRelyingPartyCertificateIsRequestSigning() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.url.path
        let made = try await Self.newKey("web-reader", in: directory)
        let metadataHash = Array(SHA256.hash(data: Array("relying party metadata".utf8)))
        let leaf = try PortalFixtureCA().issue(
            csrPEM: try Self.text(made.csr), profile: .googleRelyingParty(metadataHash: metadataHash, dnsName: "verifier.shop.example"),
            notBefore: Self.now, notAfter: Self.now.addingTimeInterval(90 * 86_400))
        let result = await Self.importJSON(certificate: try scratch.write("rp.pem", leaf.serializeAsPEM().pemString), key: made.key, out: directory)
        #expect(result.code == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["kind"] as? String == "openid4vp-signing")
        #expect(object["relyingPartyMetadataHash"] as? String == Hex.encode(metadataHash))
        let key = try P256.Signing.PrivateKey(pemRepresentation: try Self.text(made.key))
        #expect(object["jwkThumbprint"] as? String == Base64.encodeURL(try JWK(signingKey: key.publicKey).thumbprint))
        #expect(
            object["serveFlags"] as? [String] == [
                "--request-signing-key", made.key, "--request-signing-cert", directory + "/openid4vp-signing.cert.pem",
            ])
        #expect((object["certificate"] as? [String: Any])?["daysLeft"] as? Int == 90)
    }

    /// Reader EKU: web-reader; keyAgreement only: identity; digitalSignature only: the key file's name decides.
    @Test func kindsFromKeyUsage() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let portal = try PortalFixtureCA()
        func run(_ keyKind: String, _ profile: PortalFixtureCA.Profile, days: Double = 60) async throws -> [String: Any] {
            let directory = scratch.path(keyKind + "-\(UUID().uuidString.prefix(6))")
            let made = try await Self.newKey(keyKind, in: directory)
            let leaf = try portal.issue(
                csrPEM: try Self.text(made.csr), profile: profile, notBefore: Self.now, notAfter: Self.now.addingTimeInterval(days * 86_400))
            let result = await Self.importJSON(
                certificate: try scratch.write("\(UUID()).pem", leaf.serializeAsPEM().pemString), key: made.key, out: directory)
            try #require(result.code == 0, "\(result.stderr)")
            return try json(result.stdout)
        }
        let reader = try await run("openid4vp-signing", .reader)
        #expect(reader["kind"] as? String == "web-reader")
        #expect((reader["serveFlags"] as? [String])?.first == "--reader-key")
        #expect(reader["jwkThumbprint"] is String)
        let identity = try await run("web-reader", .identityEncryption)
        #expect(identity["kind"] as? String == "identity")
        #expect((identity["serveFlags"] as? [String])?.first == "--identity-key")
        #expect(reader["warnings"] as? [String] == [])
        let signing = try await run("openid4vp-signing", .signing, days: 20)
        #expect(signing["kind"] as? String == "openid4vp-signing")
        #expect((signing["warnings"] as? [String])?.first?.contains("expires in 20 days") == true)
        let signingReader = try await run("web-reader", .signing)
        #expect(signingReader["kind"] as? String == "web-reader")
        // A receipt key: named by its file, identified by the kid its receipts carry.
        let receipts = try await run("receipts", .signing)
        #expect(receipts["kind"] as? String == "receipts")
        #expect((receipts["serveFlags"] as? [String])?.first == "--receipt-key")
        #expect((receipts["kid"] as? String)?.count == 43)
    }

    @Test func aCertificateForAnotherKeyIsRefusedNamingBothFingerprints() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try await Self.newKey("identity", in: scratch.path("one"))
        let second = try await Self.newKey("identity", in: scratch.path("two"))
        let leaf = try PortalFixtureCA().issue(
            csrPEM: try Self.text(second.csr), profile: .identityEncryption, notBefore: Self.now, notAfter: Self.now.addingTimeInterval(86_400 * 365))
        let cer = try scratch.write("identity.cer", try PortalFixtureCA.der(leaf))
        let result = await Self.importJSON(certificate: cer, key: first.key, out: scratch.path("one"))
        #expect(result.code == 2)
        let keyPrint = try Self.spkiSHA256(Certificate.PublicKey(try P256.Signing.PrivateKey(pemRepresentation: try Self.text(first.key)).publicKey))
        let certificatePrint = try Self.spkiSHA256(leaf.publicKey)
        #expect(keyPrint != certificatePrint)
        #expect(result.stderr.contains(keyPrint) && result.stderr.contains(certificatePrint), "\(result.stderr)")
        #expect(result.stderr.contains(cer) && result.stderr.contains(first.key))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("one/identity.cert.pem")))
        // A chain whose leaf is not first.
        let reversed = try scratch.write(
            "reversed.pem", try PortalFixtureCA().root.serializeAsPEM().pemString + "\n" + leaf.serializeAsPEM().pemString)
        let misordered = await Self.importJSON(certificate: reversed, key: second.key, out: scratch.path("two"))
        #expect(misordered.code == 2)
        #expect(misordered.stderr.contains("number 2 in the file"), "\(misordered.stderr)")
        // Not a certificate at all; --merchant-id on an identity certificate names the merchant in the serve flags.
        #expect(await Self.importJSON(certificate: second.key, key: second.key, out: scratch.path("two")).stderr.contains("holds a private key"))
        let identityCer = try scratch.write("two.cer", try PortalFixtureCA.der(leaf))
        let merchantOnIdentity = await Self.importJSON(
            certificate: identityCer, key: second.key, out: scratch.path("two"), extra: ["--merchant-id", "merchant.com.two"])
        #expect(merchantOnIdentity.code == 0, "\(merchantOnIdentity.stderr)")
        #expect((try json(merchantOnIdentity.stdout)["serveFlags"] as? [String])?.contains("merchant.com.two") == true)
    }

    // MARK: End to end

    /// keys new → a processing certificate from the portal → keys import → `applepay decrypt` with
    /// the files written: a token encrypted for that certificate is accepted (EC_v1 and RSA_v1).
    @Test(arguments: ["applepay", "applepay-rsa"])
    func applePayEndToEnd(kind: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.path("keys")
        let made = try await Self.newKey(kind, in: directory)
        let leaf = try PortalFixtureCA().issue(
            csrPEM: try Self.text(made.csr), profile: .applePayProcessing(merchantIdentifier: Self.merchantID, uid: false),
            notBefore: Self.now.addingTimeInterval(-86_400), notAfter: Self.now.addingTimeInterval(2 * 365 * 86_400))
        let imported = await Self.importJSON(
            certificate: try scratch.write("apple_pay.cer", try PortalFixtureCA.der(leaf)), key: made.key, out: directory)
        #expect(imported.code == 0, "\(imported.stderr)")
        let facts = try json(imported.stdout)
        #expect(facts["kind"] as? String == kind)
        let flags = try #require(facts["serveFlags"] as? [String])

        // The token: encrypted to the certificate's key, naming it by its publicKeyHash.
        let keyPEM = try Self.text(made.key)
        let key: ApplePayFixtureMerchant.Key =
            kind == "applepay"
            ? .ec(try P256.KeyAgreement.PrivateKey(pemRepresentation: keyPEM)) : .rsa(try _RSA.Encryption.PrivateKey(pemRepresentation: keyPEM))
        let merchant = try ApplePayFixtureMerchant(merchantIdentifier: Self.merchantID, key: key, certificate: leaf)
        let builder = ApplePayTokenBuilder(pki: .standard, merchant: merchant)
        let token = try builder.build()
        #expect(token.header["publicKeyHash"] == facts["publicKeyHash"] as? String)

        let result = await WalletVerifierCommand.runCapturing([
            "applepay", "decrypt", "--token", try scratch.write("token.json", token.json()),
            "--merchant-cert", flags[1], "--merchant-key", flags[3],
            "--root", try scratch.write("root.pem", try ApplePayFixturePKI.pem(ApplePayFixturePKI.standard.root)),
            "--at", RFC3339.format(builder.signingTime.addingTimeInterval(20)), "--expect-currency", "840", "--expect-amount", "1999",
            "--format", "json",
        ])
        #expect(result.code == 0, "\(result.stdout)\(result.stderr)")
        #expect(try json(result.stdout)["verdict"] as? String == "accepted")
        #expect(result.stdout.contains("\"payment\":" + ApplePayTokenBuilder.samplePaymentJSON))
    }

    /// keys new → an identity encryption certificate (PEM chain) → keys import → `identity verify`
    /// with the key written: a response encrypted to the certificate's key is accepted.
    @Test func identityEndToEnd() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.path("keys")
        let made = try await Self.newKey("identity", in: directory)
        let portal = try PortalFixtureCA()
        let leaf = try portal.issue(
            csrPEM: try Self.text(made.csr), profile: .identityEncryption, notBefore: Self.now.addingTimeInterval(-86_400),
            notAfter: Self.now.addingTimeInterval(365 * 86_400))
        let imported = await Self.importJSON(certificate: try scratch.write("identity.pem", try portal.chainPEM(leaf)), key: made.key, out: directory)
        #expect(imported.code == 0, "\(imported.stderr)")
        let facts = try json(imported.stdout)
        #expect(facts["kind"] as? String == "identity")
        #expect((facts["certificate"] as? [String: Any])?["chainLength"] as? Int == 2)
        #expect(try PEMDocument.parseMultiple(pemString: try Self.text(directory + "/identity.cert.pem")).count == 2)
        let flags = try #require(facts["serveFlags"] as? [String])
        #expect(
            flags == [
                "--identity-key", made.key, "--identity-cert", directory + "/identity.cert.pem", "--merchant-id", "YOUR_MERCHANT_ID", "--team-id",
                "YOUR_TEAM_ID",
            ])

        // Wallet encrypts to the certificate's key and names it by pkRHash.
        let recipient = try P256.KeyAgreement.PublicKey(
            x963Representation: try #require(P256.Signing.PublicKey(leaf.publicKey)).x963Representation)
        #expect(facts["pkRHash"] as? String == Hex.encode(SHA256.hash(data: recipient.x963Representation)))
        let nonce = [UInt8](repeating: 5, count: 32)
        let (merchant, team) = ("merchant.example", "TEAM000001")
        let pki = try MdocPKI()
        let transcript = IdentityEnvelopeFixture.transcript(nonce: nonce, merchantID: merchant, teamID: team, recipient: recipient)
        let response = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: recipient, nonce: nonce, merchantID: merchant, teamID: team)
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", try scratch.write("envelope.cbor", envelope), "--merchant-key", flags[1],
            "--nonce", Hex.encode(nonce), "--merchant-id", merchant, "--team-id", team, "--trust", try scratch.write("iaca.pem", pki.iacaPEM),
            "--at", "2023-11-14T23:13:20Z", "--revocation", "off", "--format", "json",
        ])
        #expect(result.code == 0, "\(result.stdout)\(result.stderr)")
        #expect(try json(result.stdout)["verdict"] as? String == "accepted")
    }
}
