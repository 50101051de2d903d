import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import WalletEncoding
import X509

/// One payment-processing certificate with its private key, parsed once.
///
/// Tokens name the certificate they were encrypted for by `header.publicKeyHash` = base64 of
/// SHA-256 of the certificate's SubjectPublicKeyInfo (its DER bytes as they are in the certificate).
/// `description` shows the hash and the subject only, never key material.
public final class MerchantKey: Sendable, CustomStringConvertible {
    /// A certificate's key type in words (`EC P-256`, `RSA-2048`, `Ed25519`), for messages: never the
    /// library's description of the key.
    public static func keyTypeName(_ key: Certificate.PublicKey) -> String {
        if P256.Signing.PublicKey(key) != nil { return "EC P-256" }
        if P384.Signing.PublicKey(key) != nil { return "EC P-384" }
        if P521.Signing.PublicKey(key) != nil { return "EC P-521" }
        if let rsa = _RSA.Signing.PublicKey(key) { return "RSA-\(rsa.keySizeInBits)" }
        if Curve25519.Signing.PublicKey(key) != nil { return "Ed25519" }
        return "of another type"
    }

    /// The private key of a merchant certificate: P-256 for EC_v1 tokens, RSA for RSA_v1 tokens.
    public enum PrivateKey: Sendable {
        /// EC_v1 merchants.
        case ecP256(P256.KeyAgreement.PrivateKey)
        /// RSA_v1 merchants.
        case rsa(RSAKey)

        var kindName: String {
            switch self {
            case .ecP256: return "EC P-256"
            case .rsa(let key): return "RSA-\(key.key.keySizeInBits)"
            }
        }
    }

    /// An RSA private key. `_RSA.Encryption.PrivateKey` is not marked Sendable; the BoringSSL key
    /// behind it is immutable once built and safe to use from several threads.
    public final class RSAKey: @unchecked Sendable {
        /// The RSA private key that unwraps `header.wrappedKey` (RSA-OAEP).
        public let key: _RSA.Encryption.PrivateKey
        /// Wraps `key` so that it can be held by Sendable values.
        public init(_ key: _RSA.Encryption.PrivateKey) { self.key = key }
    }

    /// The merchant's payment-processing certificate.
    public let certificate: Certificate
    /// base64(SHA-256(SubjectPublicKeyInfo DER)), as `header.publicKeyHash` carries it.
    public let publicKeyHash: String
    let privateKey: PrivateKey
    /// SHA-256 of the merchant identifier: the KDF's PartyV info (EC_v1).
    let merchantIdentifierHash: [UInt8]?
    /// Where ``merchantIdentifierHash`` came from, for messages.
    public let merchantIdentifierSource: String?
    /// The merchant identifier in clear, when known: the one given when the key was loaded, else
    /// the certificate subject's UID (the Payment Processing certificate's extension holds only its hash).
    public let merchantIdentifier: String?
    /// The merchant identifier a merchant-validation request (Apple Pay on the web) names when this is
    /// a Merchant Identity certificate: the upper-case hex SHA-256 of the merchant id that OID
    /// 1.2.840.113635.100.6.32 holds, as the certificate holds it; without that extension, the
    /// merchant id in clear (``merchantIdentifier``); nil when neither is known.
    public let validationMerchantIdentifier: String?
    /// The certificate subject's common name (or whole subject), for messages.
    public let subjectName: String
    /// `applepay.keySelection`'s pass message and details for this key, written once.
    let selectedMessage: String
    let selectedDetails: [String: String]
    /// The end of `applepay.decryption`'s pass message for this key (after the byte count), written once.
    let decryptedMessageEnd: String

    /// The key type, ``publicKeyHash`` and subject; never key material.
    public var description: String {
        "MerchantKey(\(privateKey.kindName), publicKeyHash \(publicKeyHash), \(subjectName))"
    }

    /// Builds a key from a certificate (PEM or DER file contents) and a private-key file (PEM SEC1,
    /// PKCS#8 or PKCS#1, optionally with "EC PARAMETERS" and text preambles; or DER).
    ///
    /// - Parameter merchantIdentifier: the merchant id (e.g. `merchant.com.example`), used when the
    ///   certificate lacks OID 1.2.840.113635.100.6.32 and its subject has no UID; when the
    ///   certificate has one, the two must agree.
    public convenience init(certificateFile: [UInt8], privateKeyFile: [UInt8], merchantIdentifier: String? = nil) throws(MerchantKeyError) {
        let der = try PEMBlocks.certificateDER(fromFileContents: certificateFile, what: "the merchant certificate file")
        let key = try MerchantKeyFiles.privateKey(fromFileContents: privateKeyFile)
        try self.init(certificateDER: der, privateKey: key, merchantIdentifier: merchantIdentifier)
    }

    /// Builds a key from the certificate's DER and its private key.
    ///
    /// - Parameter merchantIdentifier: as in ``init(certificateFile:privateKeyFile:merchantIdentifier:)``.
    /// - Throws: ``MerchantKeyError`` when the certificate cannot be read, the private key is not the certificate's,
    ///   the merchant id disagrees with the certificate, or an EC key's merchant id is neither in the certificate nor given.
    public init(certificateDER der: [UInt8], privateKey: PrivateKey, merchantIdentifier: String? = nil) throws(MerchantKeyError) {
        let certificate: Certificate
        let spki: ArraySlice<UInt8>
        do {
            certificate = try Certificate(derEncoded: der)
            spki = try Self.subjectPublicKeyInfoBytes(certificateDER: der)
        } catch {
            throw MerchantKeyError(.unreadableCertificate, "the merchant certificate is not a readable X.509 certificate")
        }
        self.certificate = certificate
        self.subjectName = ParsedCertificate.displayName(certificate.subject)
        self.publicKeyHash = Base64.encode(SHA256.hash(data: spki))
        self.privateKey = privateKey
        self.selectedMessage = KeySelectionCheck.passMessage(publicKeyHash: publicKeyHash, kind: privateKey.kindName, subject: subjectName)
        self.selectedDetails = ["publicKeyHash": publicKeyHash]
        self.decryptedMessageEnd = DecryptionCheck.passMessageEnd(privateKey: privateKey, publicKeyHash: publicKeyHash)

        // The private key must belong to the certificate.
        let notItsKey = MerchantKeyError(
            .keyCertificateMismatch,
            "the private key does not belong to the certificate \(ParsedCertificate.displayName(certificate.subject)) (publicKeyHash \(publicKeyHash))"
        )
        switch privateKey {
        case .ecP256(let key):
            guard let certKey = P256.Signing.PublicKey(certificate.publicKey) else {
                throw MerchantKeyError(
                    .keyCertificateMismatch, "the private key is EC P-256 but the certificate's key is \(Self.keyTypeName(certificate.publicKey))")
            }
            guard certKey.x963Representation == key.publicKey.x963Representation else {
                throw notItsKey
            }
        case .rsa(let box):
            let key = box.key
            guard let certKey = _RSA.Signing.PublicKey(certificate.publicKey) else {
                throw MerchantKeyError(
                    .keyCertificateMismatch, "the private key is RSA but the certificate's key is \(Self.keyTypeName(certificate.publicKey))")
            }
            guard certKey.pkcs1DERRepresentation == key.publicKey.pkcs1DERRepresentation else {
                throw notItsKey
            }
        }

        let fromCertificate = try Self.merchantIdentifierHash(in: certificate)
        self.merchantIdentifier = merchantIdentifier ?? Self.subjectUID(of: certificate)
        if let fromCertificate, certificate.extensions[oid: ApplePayOID.merchantIdentifier] != nil {
            self.validationMerchantIdentifier = Hex.encode(fromCertificate.hash, uppercase: true)
        } else {
            self.validationMerchantIdentifier = self.merchantIdentifier
        }
        if let merchantIdentifier {
            let supplied = Array(SHA256.hash(data: Array(merchantIdentifier.utf8)))
            if let fromCertificate, fromCertificate.hash != supplied {
                throw MerchantKeyError(
                    .merchantIdentifierMismatch,
                    "the merchant id \"\(merchantIdentifier)\" does not match the certificate's \(fromCertificate.source) (SHA-256 \(Hex.encode(fromCertificate.hash, uppercase: true)))"
                )
            }
            self.merchantIdentifierHash = supplied
            self.merchantIdentifierSource = fromCertificate?.source ?? "the merchant id given by the caller"
        } else if let fromCertificate {
            self.merchantIdentifierHash = fromCertificate.hash
            self.merchantIdentifierSource = fromCertificate.source
        } else {
            if case .ecP256 = privateKey {
                throw MerchantKeyError(
                    .merchantIdentifierMissing,
                    "the certificate has neither OID 1.2.840.113635.100.6.32 nor a UID in its subject; pass the merchant id (e.g. --merchant-id merchant.com.example)"
                )
            }
            self.merchantIdentifierHash = nil
            self.merchantIdentifierSource = nil
        }
    }

    /// The SubjectPublicKeyInfo exactly as encoded in the certificate (what `publicKeyHash` hashes).
    /// Throws when `der` is not a certificate.
    public static func subjectPublicKeyInfoBytes(certificateDER der: [UInt8]) throws -> ArraySlice<UInt8> {
        let root = try DER.parse(der)
        guard root.identifier == .sequence, case .constructed(let certificateFields) = root.content,
            let tbs = certificateFields.first(where: { _ in true }), tbs.identifier == .sequence,
            case .constructed(let tbsFields) = tbs.content
        else { throw ASN1Error.invalidASN1Object(reason: "not a certificate") }
        var index = 0
        for field in tbsFields {
            if index == 0, field.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { continue }
            // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
            if index == 5 {
                guard field.identifier == .sequence else { break }
                return field.encodedBytes
            }
            index += 1
        }
        throw ASN1Error.invalidASN1Object(reason: "no SubjectPublicKeyInfo")
    }

    /// Method 2 of Apple's spec (the hex value of OID 1.2.840.113635.100.6.32), else method 1
    /// (SHA-256 of the subject's UID).
    static func merchantIdentifierHash(in certificate: Certificate) throws(MerchantKeyError) -> (hash: [UInt8], source: String)? {
        if let ext = certificate.extensions[oid: ApplePayOID.merchantIdentifier] {
            guard let text = extensionText(ext.value), let hash = Hex.decodeStrict(text.trimmingCharacters(in: .whitespaces)), hash.count == 32 else {
                throw MerchantKeyError(.unreadableCertificate, "the certificate's OID 1.2.840.113635.100.6.32 does not hold 64 hex characters")
            }
            return (hash, "OID 1.2.840.113635.100.6.32")
        }
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == ApplePayOID.userID {
                let uid = attribute.value.description
                return (Array(SHA256.hash(data: Array(uid.utf8))), "subject UID \"\(uid)\"")
            }
        }
        return nil
    }

    /// The certificate subject's UID (0.9.2342.19200300.100.1.1), when it has one.
    static func subjectUID(of certificate: Certificate) -> String? {
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == ApplePayOID.userID { return attribute.value.description }
        }
        return nil
    }

    /// The extension value is an ASN.1 string (UTF8String in Apple's certificates); tolerate
    /// IA5String, PrintableString, OCTET STRING and bare text.
    private static func extensionText(_ value: ArraySlice<UInt8>) -> String? {
        if let node = try? DER.parse(value), case .primitive(let content) = node.content {
            switch node.identifier {
            case .utf8String, .ia5String, .printableString, .octetString, .visibleString:
                return String(decoding: content, as: UTF8.self)
            default:
                return nil
            }
        }
        return String(decoding: value, as: UTF8.self)
    }
}

/// Reads private-key files.
public enum MerchantKeyFiles {
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]

    static let pkcs12Advice =
        "the file is a PKCS#12 keystore (.p12/.pfx); extract the private key with `openssl pkcs12 -in f.p12 -nocerts -nodes -out key.pem` (add `-legacy` for old RC2/3DES files on OpenSSL 3) and the certificate with `openssl pkcs12 -in f.p12 -nokeys -clcerts -out cert.pem`"

    /// A private key from file contents: PEM ("EC PRIVATE KEY", "PRIVATE KEY", "RSA PRIVATE KEY",
    /// with "EC PARAMETERS" blocks and text around them ignored) or DER (SEC1, PKCS#8, PKCS#1).
    public static func privateKey(fromFileContents contents: [UInt8]) throws(MerchantKeyError) -> MerchantKey.PrivateKey {
        guard !contents.isEmpty else { throw MerchantKeyError(.unreadableKey, "the private-key file is empty") }
        if contents.first == 0x30 {
            if PKCS12Detector.isPKCS12(contents) { throw MerchantKeyError(.pkcs12, pkcs12Advice) }
            return try privateKey(der: contents, label: nil)
        }
        let text = String(decoding: contents, as: UTF8.self)
        guard let pem = try PEMBlocks(text: text) else {
            // Base64 of a PKCS#12 file without PEM armour, as some portals hand it out.
            if let der = Base64.decodeStrict(text.filter { !$0.isWhitespace }), PKCS12Detector.isPKCS12(der) {
                throw MerchantKeyError(.pkcs12, pkcs12Advice)
            }
            throw MerchantKeyError(.unreadableKey, "the private-key file is neither PEM nor DER")
        }
        if let encrypted = pem.blocks.first(where: {
            $0.label == "ENCRYPTED PRIVATE KEY" || $0.headers.contains(where: { $0.hasPrefix("Proc-Type:") && $0.contains("ENCRYPTED") })
        }) {
            throw MerchantKeyError(
                .encryptedKey, "the \"\(encrypted.label)\" block is encrypted; decrypt it first with `openssl pkey -in key.pem -out key-plain.pem`")
        }
        let keyLabels: Set<String> = ["EC PRIVATE KEY", "PRIVATE KEY", "RSA PRIVATE KEY"]
        let keys = pem.blocks.filter { keyLabels.contains($0.label) }
        guard let block = keys.first else {
            if pem.blocks.contains(where: { $0.label == "PKCS12" }) { throw MerchantKeyError(.pkcs12, pkcs12Advice) }
            let labels = pem.blocks.map(\.label).joined(separator: ", ")
            throw MerchantKeyError(
                .unreadableKey, "the file has no private key block (found: \(labels)); expected EC PRIVATE KEY, PRIVATE KEY or RSA PRIVATE KEY")
        }
        guard keys.count == 1 else {
            throw MerchantKeyError(.unreadableKey, "the file has \(keys.count) private keys; give one key per --merchant-key")
        }
        return try privateKey(der: block.der, label: block.label)
    }

    static func privateKey(der: [UInt8], label: String?) throws(MerchantKeyError) -> MerchantKey.PrivateKey {
        switch label {
        case "EC PRIVATE KEY":
            return try ecKey(der)
        case "RSA PRIVATE KEY":
            return try rsaKey(der)
        default:
            break
        }
        // PKCS#8 (label PRIVATE KEY or DER): look at the algorithm.
        if let algorithm = pkcs8Algorithm(der) {
            if algorithm == ecPublicKey { return try ecKey(der) }
            if algorithm == rsaEncryption { return try rsaKey(der) }
            throw MerchantKeyError(.unsupportedKeyType, "the key's algorithm \(algorithm) is neither EC (P-256) nor RSA")
        }
        guard label == nil else {
            throw MerchantKeyError(.unreadableKey, "the \"\(label ?? "")\" block is not a PKCS#8 PrivateKeyInfo")
        }
        // DER without a label: SEC1 or PKCS#1.
        if let key = try? ecKey(der) { return key }
        if let key = try? rsaKey(der) { return key }
        throw MerchantKeyError(.unreadableKey, "the DER file is not an EC (SEC1/PKCS#8) or RSA (PKCS#1/PKCS#8) private key")
    }

    private static func pkcs8Algorithm(_ der: [UInt8]) -> ASN1ObjectIdentifier? {
        guard let root = try? DER.parse(der), case .constructed(let children) = root.content else { return nil }
        var iterator = children.makeIterator()
        guard let version = iterator.next(), version.identifier == .integer,
            let algorithm = iterator.next(), algorithm.identifier == .sequence, case .constructed(let algorithmChildren) = algorithm.content,
            let oidNode = algorithmChildren.first(where: { _ in true }),
            let privateKey = iterator.next(), privateKey.identifier == .octetString
        else { return nil }
        return try? ASN1ObjectIdentifier(derEncoded: oidNode)
    }

    private static func ecKey(_ der: [UInt8]) throws(MerchantKeyError) -> MerchantKey.PrivateKey {
        do {
            return .ecP256(try P256.KeyAgreement.PrivateKey(derRepresentation: der))
        } catch {
            throw MerchantKeyError(.unsupportedKeyType, "the EC private key could not be read as a P-256 key (Apple Pay merchant keys are P-256)")
        }
    }

    private static func rsaKey(_ der: [UInt8]) throws(MerchantKeyError) -> MerchantKey.PrivateKey {
        do {
            return .rsa(MerchantKey.RSAKey(try _RSA.Encryption.PrivateKey(derRepresentation: der)))
        } catch {
            throw MerchantKeyError(.unsupportedKeyType, "the RSA private key could not be read (PKCS#1 or PKCS#8, at least 2048 bits)")
        }
    }
}
