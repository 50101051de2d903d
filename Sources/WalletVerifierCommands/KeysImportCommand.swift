import ApplePayVerifier
import ArgumentParser
import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import VerificationCore
import VerifierServer
import WalletEncoding
import WalletIdentity
import WalletJOSE
import WebIdentity
import X509

/// `wallet-verifier keys import`: a certificate as a portal delivers it, checked against its key,
/// recognised, written beside the key, and the `serve` flags that use them.
struct KeysImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Check a certificate from a portal against its key, recognise it and write it beside the key.",
        discussion: """
            CERTIFICATE is DER (.cer) or PEM, possibly a chain with the leaf first; KEY is the private key \
            (PEM SEC1, PKCS#8 or PKCS#1, or DER). The leaf's public key must be the key's. The kind comes \
            from the certificate: Apple Pay Payment Processing (extension 1.2.840.113635.100.6.32), Google \
            relying party (1.3.6.1.4.1.11129.10.1: openid4vp-signing), otherwise the key type and key \
            usage (RSA: applepay-rsa; keyAgreement: identity; the reader EKU 1.0.18013.5.1.6: web-reader; \
            digitalSignature: identity, web-reader, openid4vp-signing or receipts, as the key file's name says). \
            An Apple Pay Merchant Identity certificate (1.2.840.113635.100.6.31) is merchant-identity, the TLS \
            client certificate of merchant validation; given with an Apple Pay processing key (or --merchant-id) it \
            is refused, since it decrypts nothing. --for KIND says which kind the certificate is when its usage \
            allows several; a kind its marker extension or key type contradicts is refused.
            Writes DIR/KIND.cert.pem (the chain as PEM). A key outside DIR is copied to DIR/KIND.key.pem \
            (PKCS#8, mode 0600); a key already in DIR stays where it is. Nothing is overwritten.
            Prints the subject, issuer, validity and days left, the identifier wallets select the key by \
            (Apple Pay publicKeyHash, identity pkRHash, JWK thumbprint) and the serve flags.
            Exit codes: 0 imported, 2 usage error, unreadable input, a key that is not the certificate's, \
            a refused certificate or a file that exists.
            """
    )

    @Option(name: .long, help: "The certificate from the portal (DER .cer or PEM; a chain leaf first).")
    var certificate: String

    @Option(name: .long, help: "The private key the certificate was issued for (as written by keys new).")
    var key: String

    @Option(name: .long, help: "The directory to write the certificate into (created when missing).")
    var out: String

    @Option(
        name: .long,
        help:
            "Apple Pay: the merchant identifier the certificate must be for, e.g. merchant.com.example (identity: filled into the serve flags).")
    var merchantId: String?

    @Option(
        name: .customLong("for"),
        help:
            "The kind of certificate when its key usage allows several: identity, applepay, applepay-rsa, merchant-identity, web-reader, openid4vp-signing or receipts."
    )
    var kind: KeyKind?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Option(name: .long, help: .hidden)
    var now: String?

    func run() async throws {
        let time: Date
        if let now {
            guard let parsed = RFC3339.parse(now) else { throw CLIInputError("--now \(now) is not an RFC 3339 time (e.g. 2026-05-01T12:00:00Z)") }
            time = parsed
        } else {
            time = Date()
        }
        if let kind, !kind.hasCertificate {
            throw CLIInputError("--for \(kind.rawValue): that key has no certificate to import (\(kind.certificateName))")
        }
        let chain = try CertificateChainFile.read(certificate)
        let leaf = chain[0]
        let hint = kind ?? KeyKind.named(byKeyFile: key)
        let confused = hint == .applepay || hint == .applepayRSA || (merchantId != nil && hint != .merchantIdentity)
        if leaf.certificate.extensions[oid: ApplePayOID.merchantIdentityCertificate] != nil, confused {
            throw CLIInputError(
                "--certificate \(certificate) is an Apple Pay Merchant Identity certificate (extension 1.2.840.113635.100.6.31): it is the TLS client certificate for merchant validation (the session request to Apple's servers), not a key that decrypts tokens: give it to serve --applepay-identity-cert with --applepay-identity-key. To decrypt tokens, import the Payment Processing certificate of your merchant ID (extension 1.2.840.113635.100.6.32)"
            )
        }
        let privateKey: MerchantKey.PrivateKey
        let keyFile = try InputFiles.readFile(key)
        do {
            privateKey = try MerchantKeyFiles.privateKey(fromFileContents: keyFile)
        } catch {
            throw CLIInputError("--key \(key): \(error.reason)")
        }
        let keySPKI = Self.subjectPublicKeyInfo(privateKey)
        try requireMatch(privateKey: privateKey, keySPKI: keySPKI, chain: chain)

        let kind = try Self.kind(of: leaf.certificate, key: privateKey, keyFileHint: KeyKind.named(byKeyFile: key), requested: self.kind)
        var facts = ImportFacts(kind: kind, leaf: leaf, chainLength: chain.count, keySPKISHA256: Hex.encode(SHA256.hash(data: keySPKI)), time: time)
        try identify(&facts, privateKey: privateKey, keyFile: keyFile)

        // The files: the certificate (chain) always, the key only when it is not in DIR yet.
        let certificatePath = KeyFiles.path(out, kind.certificateFileName)
        let keyInDirectory = Self.sameDirectory(key, out)
        let keyPath = keyInDirectory ? key : KeyFiles.path(out, kind.keyFileName)
        try KeyFiles.requireAbsent(keyInDirectory ? [certificatePath] : [certificatePath, keyPath])
        try KeyFiles.makeDirectory(out)
        let chainPEM = try chain.map { try $0.certificate.serializeAsPEM().pemString + "\n" }.joined()
        var files: [(path: String, text: String, mode: mode_t)] = [(certificatePath, chainPEM, 0o644)]
        if !keyInDirectory { files.append((keyPath, Self.pkcs8PEM(privateKey), 0o600)) }
        try KeyFiles.writeAll(files)
        facts.written = files.map(\.path)
        facts.keyPath = keyPath
        facts.serveFlags = kind.serveFlags(certificate: certificatePath, key: keyPath, merchantID: merchantId)

        switch format {
        case .json: CLIOutput.current.out(facts.json)
        case .text: CLIOutput.current.out(facts.text)
        }
    }

    // MARK: The key and the certificate

    /// The leaf's key must be the private key's; the error names both fingerprints (never the key).
    private func requireMatch(privateKey: MerchantKey.PrivateKey, keySPKI: [UInt8], chain: [CertificateChainFile.Entry]) throws {
        if Self.matches(privateKey, chain[0].certificate) { return }
        let keyPrint = Hex.encode(SHA256.hash(data: keySPKI))
        let certificatePrint = Hex.encode(SHA256.hash(data: chain[0].spki))
        if let position = chain.indices.dropFirst().first(where: { Self.matches(privateKey, chain[$0].certificate) }) {
            throw CLIInputError(
                "--certificate \(certificate): the key's certificate is number \(position + 1) in the file, but the leaf must come first; put \(chain[position].certificate.subject) first and import again"
            )
        }
        throw CLIInputError(
            "the certificate is not for this key: --certificate \(certificate) has the public key with SubjectPublicKeyInfo SHA-256 \(certificatePrint), --key \(key) has \(keyPrint). Import the certificate issued for this key's CSR, or give the key the certificate was issued for"
        )
    }

    private static func matches(_ privateKey: MerchantKey.PrivateKey, _ certificate: Certificate) -> Bool {
        switch privateKey {
        case .ecP256(let key):
            return P256.Signing.PublicKey(certificate.publicKey)?.x963Representation == key.publicKey.x963Representation
        case .rsa(let box):
            return _RSA.Signing.PublicKey(certificate.publicKey)?.pkcs1DERRepresentation == box.key.publicKey.pkcs1DERRepresentation
        }
    }

    /// The private key's public half as a DER SubjectPublicKeyInfo.
    static func subjectPublicKeyInfo(_ privateKey: MerchantKey.PrivateKey) -> [UInt8] {
        switch privateKey {
        case .ecP256(let key): return Array(key.publicKey.derRepresentation)
        case .rsa(let box): return Array(box.key.publicKey.derRepresentation)
        }
    }

    static func pkcs8PEM(_ privateKey: MerchantKey.PrivateKey) -> String {
        let pem: String
        switch privateKey {
        case .ecP256(let key): pem = key.pemRepresentation
        case .rsa(let box): pem = box.key.pkcs8PEMRepresentation
        }
        return pem.hasSuffix("\n") ? pem : pem + "\n"
    }

    /// What the certificate is for: its marker extensions first, then key type and usage; when the
    /// certificate allows several uses, the key file's name (as `keys new` wrote it) decides.
    static func kind(of certificate: Certificate, key: MerchantKey.PrivateKey, keyFileHint: KeyKind?, requested: KeyKind? = nil) throws
        -> KeyKind
    {
        // What the certificate itself says: a marker extension, or the key type.
        var marked: (kind: KeyKind, why: String)?
        if certificate.extensions[oid: ApplePayOID.merchantIdentityCertificate] != nil {
            marked = (.merchantIdentity, "the Merchant Identity extension 1.2.840.113635.100.6.31")
        } else if case .rsa = key {
            marked = (.applepayRSA, "an RSA key")
        } else if certificate.extensions[oid: ApplePayOID.merchantIdentifier] != nil {
            marked = (.applepay, "the Apple Pay merchant extension 1.2.840.113635.100.6.32")
        } else if certificate.extensions[oid: RelyingPartyCertificate.metadataExtension] != nil {
            marked = (.openID4VPSigning, "Google's relying-party extension 1.3.6.1.4.1.11129.10.1")
        } else if let usages = try? certificate.extensions.extendedKeyUsage,
            usages.contains(ExtendedKeyUsage.Usage(oid: ReaderCertificateProfile.readerAuthEKU))
        {
            marked = (.webReader, "the mdoc reader extended key usage 1.0.18013.5.1.6")
        }
        if let marked {
            if let requested, requested != marked.kind, !(marked.kind == .applepayRSA && requested == .merchantIdentity) {
                throw CLIInputError(
                    "--for \(requested.rawValue) does not fit this certificate: it carries \(marked.why), so it is a \(marked.kind.certificateName) (\(marked.kind.rawValue))"
                )
            }
            return requested ?? marked.kind
        }
        let usage = try? certificate.extensions.keyUsage
        var candidates: [KeyKind] = []
        if usage == nil || usage?.keyAgreement == true { candidates.append(.identity) }
        if usage == nil || usage?.digitalSignature == true { candidates += [.webReader, .openID4VPSigning, .receipts] }
        // An identity encryption certificate may carry digitalSignature only: the operator's word, or
        // the name keys new gave the key, says it is one.
        if usage?.digitalSignature == true, !candidates.contains(.identity) { candidates.append(.identity) }
        if let requested {
            guard candidates.contains(requested) else {
                throw CLIInputError(
                    "--for \(requested.rawValue) does not fit this certificate: it is a P-256 certificate without Apple's or Google's marker extensions (identity, web-reader, openid4vp-signing or receipts)"
                )
            }
            return requested
        }
        if let keyFileHint, candidates.contains(keyFileHint) { return keyFileHint }
        guard let first = candidates.first else {
            throw CLIInputError(
                "the certificate's key usage allows neither keyAgreement (identity encryption) nor digitalSignature (request signing); it is not a certificate wallet-verifier uses"
            )
        }
        return first
    }

    /// The identifiers wallets select the key by, and the Apple Pay merchant identifier check.
    private func identify(_ facts: inout ImportFacts, privateKey: MerchantKey.PrivateKey, keyFile: [UInt8]) throws {
        let kind = facts.kind
        if merchantId != nil, kind != .applepay, kind != .applepayRSA, kind != .identity {
            throw CLIInputError(
                "--merchant-id applies to Apple Pay Payment Processing certificates; \(certificate) is a \(kind.certificateName) (\(kind.rawValue))")
        }
        switch kind {
        case .applepay, .applepayRSA:
            // The verifier's own reading of the certificate: the hash tokens carry and the merchant id.
            let merchantKey: MerchantKey
            do {
                merchantKey = try MerchantKey(certificateDER: facts.leaf.der, privateKey: privateKey, merchantIdentifier: merchantId)
            } catch {
                throw CLIInputError("--certificate \(certificate): \(error.reason)")
            }
            if let merchantId { try Self.requireSubjectNames(merchantId, in: facts.leaf.certificate, file: certificate) }
            facts.identifiers.append(("publicKeyHash", merchantKey.publicKeyHash, "header.publicKeyHash of the tokens encrypted for it"))
            if let source = merchantKey.merchantIdentifierSource {
                facts.identifiers.append(
                    ("merchantIdentifier", source, merchantId == nil ? "where the KDF's merchant id comes from" : "matches --merchant-id"))
            }
        case .identity:
            guard case .ecP256(let key) = privateKey else { break }
            facts.identifiers.append(
                ("pkRHash", Hex.encode(IdentityKeyRing.publicKeyHash(key.publicKey)), "params.pkRHash of the identity responses encrypted for it"))
        case .receipts:
            guard case .ecP256(let key) = privateKey else { break }
            facts.identifiers.append(
                ("kid", Base64.encodeURL(JWK(publicKey: key.publicKey).thumbprint), "the kid of the receipts it signs (RFC 7638)"))
        case .googlepay, .webKey:
            break
        case .merchantIdentity:
            let identity: ApplePayMerchantIdentity
            do { identity = try ApplePayMerchantIdentity(certificateFile: facts.leaf.der, keyFile: keyFile) } catch {
                throw CLIInputError("--certificate \(certificate): \(error.message)")
            }
            facts.identifiers.append(("merchantIdentifier", identity.merchantIdentifier, "what merchant validation sends Apple"))
        case .webReader, .openID4VPSigning:
            guard case .ecP256(let key) = privateKey else { break }
            facts.identifiers.append(("jwkThumbprint", Base64.encodeURL(JWK(publicKey: key.publicKey).thumbprint), "RFC 7638 SHA-256, base64url"))
            facts.identifiers.append(
                (
                    "x509HashClientId", "x509_hash:" + Base64.encodeURL(SHA256.hash(data: facts.leaf.der)),
                    "OpenID4VP client_id with --openid4vp-client-id x509_hash"
                ))
            if let hash = RelyingPartyCertificate.metadataHash(facts.leaf.certificate) {
                facts.identifiers.append(("relyingPartyMetadataHash", Hex.encode(hash), "extension 1.3.6.1.4.1.11129.10.1"))
            }
        }
    }

    /// Apple also writes the merchant identifier in clear in the subject, as its UID and as its CN
    /// (`Merchant ID: <id>`): each one present must be `merchantID` too (the extension is checked by
    /// the verifier's own reading, `MerchantKey`).
    static func requireSubjectNames(_ merchantID: String, in certificate: Certificate, file: String) throws {
        for attribute in certificate.subject.flatMap({ $0 }) {
            let text = attribute.value.description
            if attribute.type == ApplePayOID.userID, text != merchantID {
                throw CLIInputError("--certificate \(file): its subject UID is \"\(text)\", not --merchant-id \"\(merchantID)\"")
            }
            if attribute.type == .RDNAttributeType.commonName, text.hasPrefix("Merchant ID: "), text.dropFirst(13) != merchantID {
                throw CLIInputError("--certificate \(file): its subject CN is \"\(text)\", not for --merchant-id \"\(merchantID)\"")
            }
        }
    }

    /// Whether the file at `path` is directly in `directory` (both resolved).
    static func sameDirectory(_ path: String, _ directory: String) -> Bool {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath().path
        let target = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL.resolvingSymlinksInPath().path
        return parent == target
    }
}

/// Everything `keys import` prints, as text or as one JSON object.
struct ImportFacts {
    let kind: KeyKind
    let leaf: CertificateChainFile.Entry
    let chainLength: Int
    let keySPKISHA256: String
    let time: Date
    var identifiers: [(name: String, value: String, note: String)] = []
    var written: [String] = []
    var keyPath = ""
    var serveFlags: [String] = []

    /// Whole days from `time` to notAfter, rounded down (negative once expired).
    var daysLeft: Int { Int((leaf.certificate.notValidAfter.timeIntervalSince(time) / 86_400).rounded(.down)) }

    var warnings: [String] {
        var result: [String] = []
        let certificate = leaf.certificate
        if certificate.notValidAfter < time {
            result.append("the certificate expired \(-daysLeft) days ago (\(RFC3339.format(certificate.notValidAfter))); request a new one")
        } else if certificate.notValidBefore > time {
            result.append("the certificate is not valid before \(RFC3339.format(certificate.notValidBefore))")
        } else if daysLeft < 30 {
            result.append("the certificate expires in \(daysLeft) days; request its successor now")
        }
        return result
    }

    var text: String {
        let certificate = leaf.certificate
        var rows: [(String, String)] = [
            ("kind", "\(kind.rawValue): \(kind.certificateName)"),
            ("subject", "\(certificate.subject)"),
            ("issuer", "\(certificate.issuer)"),
            ("notBefore", RFC3339.format(certificate.notValidBefore)),
            ("notAfter", "\(RFC3339.format(certificate.notValidAfter)) (\(daysLeft) days left)"),
            ("spkiSHA256", keySPKISHA256),
        ]
        for identifier in identifiers { rows.append((identifier.name, "\(identifier.value) (\(identifier.note))")) }
        let width = rows.map(\.0.count).max() ?? 0
        var lines = rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalText.escape($0.1) }
        for path in written {
            lines.append(
                "wrote \(path)" + (path == keyPath ? " (the private key, PKCS#8, mode 0600)" : " (\(chainLength) certificate(s), leaf first)"))
        }
        for warning in warnings { lines.append("WARNING  \(warning)") }
        lines.append("serve with: " + serveFlags.map(KeyFiles.shellWord).joined(separator: " "))
        return lines.joined(separator: "\n")
    }

    var json: String {
        let certificate = leaf.certificate
        var object: [String: Any] = [
            "kind": kind.rawValue,
            "certificate": [
                "subject": "\(certificate.subject)", "issuer": "\(certificate.issuer)",
                "notBefore": RFC3339.format(certificate.notValidBefore), "notAfter": RFC3339.format(certificate.notValidAfter),
                "daysLeft": daysLeft, "chainLength": chainLength, "sha256": Hex.encode(SHA256.hash(data: leaf.der)),
            ] as [String: Any],
            "spkiSHA256": keySPKISHA256,
            "files": ["certificate": written.first ?? "", "key": keyPath],
            "written": written,
            "serveFlags": serveFlags,
            "warnings": warnings,
        ]
        for identifier in identifiers { object[identifier.name] = identifier.value }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// A certificate file as portals deliver it: one DER certificate (`.cer`), or PEM with one or more
/// CERTIFICATE blocks, leaf first.
enum CertificateChainFile {
    /// One certificate: parsed, its DER, and its SubjectPublicKeyInfo as encoded.
    struct Entry {
        let certificate: Certificate
        let der: [UInt8]
        let spki: [UInt8]
    }

    static func read(_ path: String) throws -> [Entry] {
        let contents = try InputFiles.readFile(path)
        var ders: [[UInt8]] = []
        if contents.first == 0x30 {
            ders = [contents]
        } else {
            let text = String(decoding: contents, as: UTF8.self)
            let blocks: [PEM.Block]
            do { blocks = try PEM.blocks(in: text) } catch {
                throw CLIInputError("--certificate \(path): a PEM block could not be read (\(error.message))")
            }
            if blocks.contains(where: { $0.label.hasSuffix("PRIVATE KEY") }) {
                throw CLIInputError("--certificate \(path) holds a private key; give the certificate as --certificate and the key as --key")
            }
            ders = blocks.filter { $0.label == "CERTIFICATE" || $0.label == "X509 CERTIFICATE" }.map(\.der)
            if ders.isEmpty {
                if let der = Base64.decodeStrict(text.filter { !$0.isWhitespace }), der.first == 0x30 {
                    ders = [der]  // base64 of a DER certificate without PEM armour
                } else {
                    throw CLIInputError("--certificate \(path) is neither a DER certificate (.cer) nor PEM with a CERTIFICATE block")
                }
            }
        }
        return try ders.enumerated().map { index, der in
            do {
                let certificate = try Certificate(derEncoded: der)
                let spki = Array(try MerchantKey.subjectPublicKeyInfoBytes(certificateDER: der))
                return Entry(certificate: certificate, der: der, spki: spki)
            } catch {
                let which = ders.count == 1 ? "" : " (certificate \(index + 1))"
                throw CLIInputError("--certificate \(path)\(which) is not a readable X.509 certificate")
            }
        }
    }
}
