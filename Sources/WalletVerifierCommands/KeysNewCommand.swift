import ArgumentParser
import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import VerificationCore
import WalletEncoding
import X509

/// `wallet-verifier keys new`: a private key and a PKCS#10 certificate signing request for one kind of
/// key, and what to do with the request.
struct KeysNewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Make a private key and a certificate signing request (CSR) to upload to a portal.",
        discussion: """
            Writes DIR/KIND.key.pem (PKCS#8 PEM, mode 0600; P-256, or RSA-2048 for applepay-rsa and merchant-identity) and \
            DIR/KIND.csr.pem (PKCS#10, signed by the key with SHA-256), creating DIR when missing. Neither \
            file is written when either exists. Then prints where to upload the CSR, which certificate to \
            ask for, and the keys import command to run with the certificate you download.
            KIND: identity (identity encryption, Apple Developer portal), applepay and applepay-rsa \
            (Apple Pay Payment Processing, Apple Developer portal), web-reader (Verify with Wallet on the \
            Web, Apple Business), openid4vp-signing (OpenID4VP request signing, Google or a verifier registrar), \
            receipts (signs verification receipts; a certificate is optional), merchant-identity (Apple Pay \
            Merchant Identity certificate, the TLS client certificate of merchant validation, Apple Developer portal), \
            googlepay (Google Pay merchant encryption key: no CSR is written; register the printed public key with \
            Google), web-key (the recipient key of web responses: no CSR, nothing to register).
            Every serve flag the flow needs is printed, with placeholders in capitals for the values only you know.
            Exit codes: 0 written, 2 usage error or a file that exists.
            """
    )

    @Option(
        name: .customLong("for"),
        help: "identity, applepay, applepay-rsa, merchant-identity, web-reader, openid4vp-signing, receipts, googlepay or web-key.")
    var kind: KeyKind

    @Option(name: .long, help: "The directory to write into (created when missing).")
    var out: String

    @Option(
        name: .long, help: "The CSR's subject, e.g. \"CN=Example Shop,O=Example Inc.,C=US\" (CN, O, OU, C, ST, L). Default: CN=wallet-verifier KIND.")
    var subject: String?

    func run() async throws {
        guard kind.hasCertificate else { return try writeKeyAlone() }
        let name = try SubjectName.parse(subject ?? "CN=wallet-verifier \(kind.rawValue)")
        let keyPath = KeyFiles.path(out, kind.keyFileName)
        let csrPath = KeyFiles.path(out, kind.csrFileName)
        try KeyFiles.requireAbsent([keyPath, csrPath])
        try KeyFiles.makeDirectory(out)

        let made = try Self.make(kind, subject: name)
        try KeyFiles.writeAll([(keyPath, made.keyPEM, 0o600), (csrPath, made.csrPEM, 0o644)])

        let output = CLIOutput.current
        output.out("wrote \(keyPath) (\(kind.keyTypeName) private key, PKCS#8, mode 0600: keep it on the server, never upload it)")
        output.out("wrote \(csrPath) (certificate signing request for \(name), signed with SHA-256)")
        output.out("public key SHA-256 (SubjectPublicKeyInfo): \(made.spkiSHA256)")
        output.out("")
        output.out("next: get the \(kind.certificateName)")
        for (index, step) in kind.portalSteps.enumerated() {
            output.out("  \(index + 1). \(step)")
        }
        output.out("     CSR: \(csrPath)")
        var importCommand = [
            "wallet-verifier", "keys", "import", "--certificate", "CERTIFICATE_FILE", "--key", keyPath, "--out", out,
        ].map(KeyFiles.shellWord)
        if kind == .applepay || kind == .applepayRSA { importCommand += ["--merchant-id", "YOUR_MERCHANT_ID"] }
        output.out("  \(kind.portalSteps.count + 1). with the certificate you downloaded (DER .cer or PEM), run:")
        output.out("     " + importCommand.joined(separator: " "))
        let certificatePath = KeyFiles.path(out, kind.certificateFileName)
        output.out(
            "  \(kind.portalSteps.count + 2). serve with: "
                + kind.serveFlags(certificate: certificatePath, key: keyPath).map(KeyFiles.shellWord).joined(separator: " "))
    }

    /// `--for googlepay` and `--for web-key`: the key alone (and, for Google Pay, the public key to register).
    private func writeKeyAlone() throws {
        if subject != nil {
            throw CLIInputError(
                kind == .googlepay
                    ? "--subject applies to keys with a certificate; a Google Pay key has none (Google takes the public key itself)"
                    : "--subject applies to keys with a certificate; a web key has none (each web request carries its public key)")
        }
        let keyPath = KeyFiles.path(out, kind.keyFileName)
        try KeyFiles.requireAbsent([keyPath])
        try KeyFiles.makeDirectory(out)
        let key = P256.KeyAgreement.PrivateKey()
        try KeyFiles.writeAll([(keyPath, key.pemRepresentation + "\n", 0o600)])
        let output = CLIOutput.current
        output.out("wrote \(keyPath) (\(kind.keyTypeName) private key, PKCS#8, mode 0600: keep it on the server, never upload it)")
        if kind == .googlepay {
            output.out("public key to register with Google (base64, uncompressed point): \(Base64.encode(key.publicKey.x963Representation))")
        }
        output.out("")
        output.out("next: \(kind.certificateName)")
        for (index, step) in kind.portalSteps.enumerated() {
            output.out("  \(index + 1). \(step)")
        }
        output.out(
            "  \(kind.portalSteps.count + 1). serve with: "
                + kind.serveFlags(certificate: "", key: keyPath).map(KeyFiles.shellWord).joined(separator: " "))
    }

    /// A new key of `kind` and its CSR: the key's PKCS#8 PEM, the CSR's PEM and the hex SHA-256 of the
    /// public key's SubjectPublicKeyInfo.
    static func make(_ kind: KeyKind, subject: DistinguishedName) throws -> (keyPEM: String, csrPEM: String, spkiSHA256: String) {
        let keyPEM: String
        let privateKey: Certificate.PrivateKey
        let algorithm: Certificate.SignatureAlgorithm
        let spki: [UInt8]
        do {
            if kind.isRSA {
                let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                keyPEM = key.pkcs8PEMRepresentation
                privateKey = Certificate.PrivateKey(key)
                algorithm = .sha256WithRSAEncryption
                spki = Array(key.publicKey.derRepresentation)
            } else {
                let key = P256.Signing.PrivateKey()
                keyPEM = key.pemRepresentation
                privateKey = Certificate.PrivateKey(key)
                algorithm = .ecdsaWithSHA256
                spki = Array(key.publicKey.derRepresentation)
            }
            let csr = try CertificateSigningRequest(
                version: .v1, subject: subject, privateKey: privateKey, attributes: CertificateSigningRequest.Attributes(),
                signatureAlgorithm: algorithm)
            return (keyPEM, try csr.serializeAsPEM().pemString + "\n", Hex.encode(SHA256.hash(data: spki)))
        } catch {
            throw CLIInputError("cannot make the \(kind.keyTypeName) key or its CSR: \(error)")
        }
    }
}
