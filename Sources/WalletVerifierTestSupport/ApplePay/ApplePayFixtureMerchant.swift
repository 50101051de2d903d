import ApplePayVerifier
import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

/// A merchant's payment-processing certificate and private key, made in code: EC P-256 (EC_v1) or
/// RSA-2048 (RSA_v1). The certificate carries OID 1.2.840.113635.100.6.32 (a UTF8String of the
/// upper-case hex SHA-256 of the merchant id, as Apple writes it) and UID=merchant id.
public struct ApplePayFixtureMerchant: @unchecked Sendable {
    /// The merchant's private key, which decides the token version.
    public enum Key: @unchecked Sendable {
        /// A P-256 key agreement key, for EC_v1 tokens.
        case ec(P256.KeyAgreement.PrivateKey)
        /// An RSA key, for RSA_v1 tokens (it unwraps `wrappedKey`).
        case rsa(_RSA.Encryption.PrivateKey)
    }

    /// The merchant identifier, such as `merchant.com.example.fixture`; tokens are encrypted for it.
    public let merchantIdentifier: String
    /// The merchant's private key.
    public let key: Key
    /// The merchant's payment-processing certificate, issued by a fixture CA that is not ``ApplePayFixturePKI``.
    public let certificate: Certificate
    /// The certificate's DER encoding.
    public let certificateDER: [UInt8]

    /// A pool of RSA keys generated once per process (slow in debug builds).
    private struct RSAKeyPool: @unchecked Sendable {
        let keys: [_RSA.Encryption.PrivateKey]
    }

    private static let rsaKeyPool: RSAKeyPool = {
        do {
            return RSAKeyPool(keys: try (0..<2).map { _ in try _RSA.Encryption.PrivateKey(keySize: .bits2048) })
        } catch {
            fatalError("fixture RSA key generation failed: \(error)")
        }
    }()

    private static let issuerKey = P256.Signing.PrivateKey()
    private static let issuerName = try! DistinguishedName {
        CountryName("US")
        OrganizationName("Fixture Inc.")
        CommonName("Fixture Worldwide Developer Relations CA - G2")
    }

    /// An EC_v1 merchant with a fresh P-256 key. `validity` replaces the certificate's default
    /// validity (a day before ``ApplePayFixturePKI/epoch`` to two years after it): a certificate
    /// valid around the real clock, or one about to expire.
    public static func ec(
        merchantIdentifier: String = "merchant.com.example.fixture", includeMerchantIdentifierOID: Bool = true, includeUID: Bool = true,
        validity: (notBefore: Date, notAfter: Date)? = nil
    ) throws -> ApplePayFixtureMerchant {
        try ApplePayFixtureMerchant(
            merchantIdentifier: merchantIdentifier, key: .ec(P256.KeyAgreement.PrivateKey()), includeOID: includeMerchantIdentifierOID,
            includeUID: includeUID, validity: validity)
    }

    /// An RSA_v1 merchant; `keyIndex` picks one of two pre-generated RSA-2048 keys.
    public static func rsa(merchantIdentifier: String = "merchant.com.example.fixture", keyIndex: Int = 0) throws -> ApplePayFixtureMerchant {
        try ApplePayFixtureMerchant(
            merchantIdentifier: merchantIdentifier, key: .rsa(rsaKeyPool.keys[keyIndex % rsaKeyPool.keys.count]), includeOID: true, includeUID: true)
    }

    /// A merchant whose key and certificate were made elsewhere (for example by `keys new` and a
    /// portal's certificate): tokens are encrypted to `key` and name `certificate` by its publicKeyHash.
    public init(merchantIdentifier: String, key: Key, certificate: Certificate) throws {
        self.merchantIdentifier = merchantIdentifier
        self.key = key
        self.certificate = certificate
        self.certificateDER = try ApplePayFixturePKI.der(certificate)
    }

    init(merchantIdentifier: String, key: Key, includeOID: Bool, includeUID: Bool, validity: (notBefore: Date, notAfter: Date)? = nil) throws {
        self.merchantIdentifier = merchantIdentifier
        self.key = key
        let publicKey: Certificate.PublicKey
        switch key {
        case .ec(let privateKey):
            publicKey = Certificate.PublicKey(try P256.Signing.PublicKey(x963Representation: privateKey.publicKey.x963Representation))
        case .rsa(let privateKey):
            publicKey = Certificate.PublicKey(try _RSA.Signing.PublicKey(derRepresentation: privateKey.publicKey.derRepresentation))
        }
        var extensions = Certificate.Extensions()
        try extensions.append(Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
        try extensions.append(Certificate.Extension(KeyUsage(keyEncipherment: true, keyAgreement: true), critical: true))
        if includeOID {
            let hashHex = Array(SHA256.hash(data: Array(merchantIdentifier.utf8))).map { String(format: "%02X", $0) }.joined()
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1UTF8String(hashHex))
            try extensions.append(Certificate.Extension(oid: ApplePayOID.merchantIdentifier, critical: false, value: serializer.serializedBytes[...]))
        }
        let subject = try DistinguishedName {
            CountryName("US")
            OrganizationName("Fixture Merchant")
            CommonName("Merchant ID: \(merchantIdentifier)")
        }
        var rdns = Array(subject)
        if includeUID {
            rdns.insert(
                RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: ApplePayOID.userID, utf8String: merchantIdentifier)), at: 0)
        }
        self.certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: validity?.notBefore ?? ApplePayFixturePKI.epoch.addingTimeInterval(-86_400),
            notValidAfter: validity?.notAfter ?? ApplePayFixturePKI.epoch.addingTimeInterval(2 * 365 * 86_400),
            issuer: Self.issuerName,
            subject: DistinguishedName(rdns),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(Self.issuerKey)
        )
        self.certificateDER = try ApplePayFixturePKI.der(certificate)
    }

    /// base64 SHA-256 of the certificate's SubjectPublicKeyInfo: what tokens put in publicKeyHash.
    public var publicKeyHash: String {
        let spki = (try? certificate.publicKey.serializeAsPEM().derBytes) ?? []
        return Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    /// The certificate in PEM; empty if it cannot be serialised.
    public var certificatePEM: String {
        (try? ApplePayFixturePKI.pem(certificate)) ?? ""
    }

    /// The verifier's view of this merchant.
    public func merchantKey(merchantIdentifier: String? = nil) throws -> MerchantKey {
        switch key {
        case .ec(let privateKey):
            return try MerchantKey(certificateDER: certificateDER, privateKey: .ecP256(privateKey), merchantIdentifier: merchantIdentifier)
        case .rsa(let privateKey):
            return try MerchantKey(
                certificateDER: certificateDER, privateKey: .rsa(MerchantKey.RSAKey(privateKey)), merchantIdentifier: merchantIdentifier)
        }
    }

    // MARK: Key files in the forms people have them

    /// EC: SEC1 "EC PRIVATE KEY"; RSA: PKCS#1 "RSA PRIVATE KEY".
    public var traditionalKeyPEM: String {
        switch key {
        case .ec(let privateKey): return Self.pem("EC PRIVATE KEY", Self.sec1(privateKey))
        case .rsa(let privateKey): return Self.pem("RSA PRIVATE KEY", [UInt8](privateKey.derRepresentation))
        }
    }

    /// PKCS#8 "PRIVATE KEY".
    public var pkcs8KeyPEM: String {
        switch key {
        case .ec(let privateKey): return privateKey.pemRepresentation
        case .rsa(let privateKey): return privateKey.pkcs8PEMRepresentation
        }
    }

    /// What `openssl pkcs12 -nocerts -nodes` writes: "Bag Attributes" text, then the key.
    public var opensslBagAttributesKeyPEM: String {
        """
        Bag Attributes
            localKeyID: 01 00 00 00
            friendlyName: fixture merchant key
        Key Attributes: <No Attributes>
        \(pkcs8KeyPEM)
        """
    }

    /// `openssl ecparam -genkey` output: an "EC PARAMETERS" block, then the SEC1 key.
    public var ecParametersAndKeyPEM: String {
        "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + traditionalKeyPEM
    }

    static func pem(_ label: String, _ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }

    /// RFC 5915 ECPrivateKey: SEQUENCE { 1, privateKey, [0] prime256v1, [1] publicKey }.
    static func sec1(_ key: P256.KeyAgreement.PrivateKey) -> [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(1)
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(key.rawRepresentation)))
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { inner in
                let curve: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 7]
                try inner.serialize(curve)
            }
            try coder.serialize(explicitlyTaggedWithTagNumber: 1, tagClass: .contextSpecific) { inner in
                try inner.serialize(ASN1BitString(bytes: ArraySlice(key.publicKey.x963Representation)))
            }
        }
        return serializer.serializedBytes
    }
}
