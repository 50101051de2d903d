import ApplePayVerifier
import Crypto
import Foundation
import Mdoc
import WalletCBOR

/// Files and keys for running the service in tests: an identity key, an IACA, an Apple-like PKI
/// and an Apple Pay merchant, written to a temporary directory, plus builders for submissions.
public struct ServiceFixture: @unchecked Sendable {
    /// The temporary directory holding the fixture's files; ``remove()`` deletes it.
    public let directory: URL
    /// The service's identity key: in-app identity responses are encrypted to it.
    public let identityKey: P256.KeyAgreement.PrivateKey
    /// The path of the identity key's PKCS#8 PEM file.
    public let identityKeyPath: String
    /// The recipient key of web responses (separate from the identity key).
    public let webKey: P256.KeyAgreement.PrivateKey
    /// The path of the web key's PKCS#8 PEM file.
    public let webKeyPath: String
    /// The origin the service accepts web requests from.
    public let webOrigin = "https://shop.example"
    /// The in-app flow's issuer: a long-lived document signer (valid 2020–2033, so real-clock
    /// processes can use it), which breaks Annex B's validity length — a warning under the in-app
    /// policy.
    public let mdocPKI: MdocPKI
    /// The same IACA with a document signer that keeps all of Annex B (valid 2023-06-01 for 456
    /// days, around `time`): the web and mdoc flows verify ISO/IEC 18013-5 as written.
    public let webPKI: MdocPKI
    /// The path of the IACA's PEM file, the trust root for both ``mdocPKI`` and ``webPKI``.
    public let iacaPath: String
    /// The Apple Pay merchant (EC_v1) whose certificate and key the service loads.
    public let merchant: ApplePayFixtureMerchant
    /// The path of the merchant certificate's PEM file.
    public let merchantCertificatePath: String
    /// The path of the merchant key's PKCS#8 PEM file.
    public let merchantKeyPath: String
    /// The path of the fixture Apple Pay root certificate's PEM file (``ApplePayFixturePKI/standard``).
    public let applePayRootPath: String
    /// The merchant identifier the service is configured with, bound into in-app session transcripts.
    public let merchantID = "merchant.com.example.service"
    /// The team identifier the service is configured with, bound into in-app session transcripts.
    public let teamID = "TEAMSERVICE"
    /// Sets this process's file-creation mask to 077 once, so every file a test writes is
    /// readable by its owner only (and so are those of the processes it starts).
    public static let ownerOnlyFiles: Void = { _ = umask(0o077) }()

    /// A time at which every fixture is valid (the Apple Pay fixture's signing time + 1 minute).
    public static let time = ApplePayFixturePKI.epoch.addingTimeInterval(3660)

    /// Generates the keys and PKIs and writes their files (mode 0600) to a new temporary directory.
    /// Throws when a key or certificate cannot be built or a file cannot be written.
    public init() throws {
        // Files the tests write hold keys and tokens: owner-only, as `serve` requires of secrets.
        // A test of a file others may read sets that mode itself.
        ServiceFixture.ownerOnlyFiles
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-verifier-service-\(UUID().uuidString)")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw VectorError("cannot write \(path)")
            }
            return path
        }
        let identityKey = P256.KeyAgreement.PrivateKey()
        self.identityKey = identityKey
        identityKeyPath = try write("identity-key.pem", identityKey.pemRepresentation)
        let webKey = P256.KeyAgreement.PrivateKey()
        self.webKey = webKey
        webKeyPath = try write("web-key.pem", webKey.pemRepresentation)
        let mdocPKI = try MdocPKI.longLived()
        self.mdocPKI = mdocPKI
        webPKI = try mdocPKI.anotherDocumentSigner()
        iacaPath = try write("iaca.pem", mdocPKI.iacaPEM)
        let merchant = try ApplePayFixtureMerchant.ec()
        self.merchant = merchant
        merchantCertificatePath = try write("merchant.pem", merchant.certificatePEM)
        merchantKeyPath = try write("merchant-key.pem", merchant.pkcs8KeyPEM)
        applePayRootPath = try write("applepay-root.pem", try ApplePayFixturePKI.pem(ApplePayFixturePKI.standard.root))
    }

    /// `serve` flags for this fixture (without host, port and store).
    public var serveArguments: [String] {
        [
            "--identity-key", identityKeyPath, "--merchant-id", merchantID, "--team-id", teamID, "--trust", iacaPath,
            "--web-key", webKeyPath, "--web-origin", webOrigin,
            "--applepay-cert", merchantCertificatePath, "--applepay-key", merchantKeyPath, "--applepay-root", applePayRootPath,
        ]
    }

    /// ``serveArguments`` with the IACA also trusted for passports (`--trust-doctype
    /// org.iso.23220.photoid.1=…`): a passport verifies only through a root scoped to its docType.
    public var passportServeArguments: [String] {
        serveArguments + ["--trust-doctype", "\(PhotoIDFixture.docType)=\(iacaPath)"]
    }

    /// An encrypted identity response for a nonce the service issued.
    public func identityResponse(
        nonce: [UInt8], fixture: MdocFixture = MdocFixture(), pki: MdocPKI? = nil,
        merchant: (merchantID: String, teamID: String)? = nil
    ) throws -> [UInt8] {
        let (merchantID, teamID) = merchant ?? (self.merchantID, self.teamID)
        let transcript = IdentityEnvelopeFixture.transcript(nonce: nonce, merchantID: merchantID, teamID: teamID, recipient: identityKey.publicKey)
        let response = try fixture.deviceResponse(pki: pki ?? mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        return try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: identityKey.publicKey, nonce: nonce, merchantID: merchantID, teamID: teamID)
    }

    /// A wallet's answer to a web request (ISO/IEC 18013-7 Annex C): a DeviceResponse signed for the
    /// request's transcript (`encryptionInfo`, `origin`), sealed with HPKE to the web key, as the
    /// EncryptedResponse CBOR and as the base64url text a page submits.
    /// With `deviceSignedFor`, the device signs that transcript instead (an answer sealed for this
    /// request but made for another).
    public func webResponse(
        encryptionInfo: String, origin: String, fixture: MdocFixture = MdocFixture(), pki: MdocPKI? = nil, deviceSignedFor: SessionTranscript? = nil
    ) throws -> (cbor: [UInt8], base64URL: String) {
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin)
        let deviceResponse = try fixture.deviceResponse(
            pki: pki ?? webPKI, deviceKey: P256.Signing.PrivateKey(), transcript: deviceSignedFor ?? transcript)
        let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
        var sender = try HPKE.Sender(recipientKey: webKey.publicKey, ciphersuite: suite, info: Data(transcript.bytes))
        let cipherText = try sender.seal(deviceResponse, authenticating: Data())
        let encrypted = Array(
            CBORNode.array([.text("dcapi"), try .map(["enc": .bytes(sender.encapsulatedKey), "cipherText": .bytes(cipherText)])]).encodedBytes)
        let text = Data(encrypted).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return (encrypted, text)
    }

    /// A fresh Apple Pay token (new transaction id) as PKPaymentToken JSON.
    public func applePayToken(signedAt signingTime: Date = ApplePayFixturePKI.epoch.addingTimeInterval(3600)) throws -> [UInt8] {
        try ApplePayTokenBuilder(merchant: merchant, signingTime: signingTime).build().json(asPKPaymentToken: true)
    }

    /// A request descriptor JSON asking for a driver's license: names, date of birth, age over 21, portrait and document number.
    public static let descriptorJSON =
        #"{"document":"driversLicense","elements":[{"element":"givenName","intentToStore":"willNotStore"},{"element":"familyName","intentToStore":"willNotStore"},{"element":"dateOfBirth","intentToStore":"willNotStore"},{"element":"age","atLeast":21,"intentToStore":"willNotStore"},{"element":"portrait","intentToStore":{"mayStoreDays":30}},{"element":"documentNumber","intentToStore":"willNotStore"}]}"#

    /// Deletes ``directory`` and everything in it, ignoring errors.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
