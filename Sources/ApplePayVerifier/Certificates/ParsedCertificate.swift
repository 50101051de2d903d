import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import WalletEncoding
import X509

/// Object identifiers Apple defines for Apple Pay certificates.
public enum ApplePayOID {
    /// Marker on the Apple Pay signing leaf certificate.
    public static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 29]
    /// Marker on Apple Application Integration CA - G3 (the intermediate).
    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 14]
    /// Merchant identifier extension of a payment-processing certificate: hex of SHA-256(merchant id).
    public static let merchantIdentifier: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 32]
    /// Marker of an Apple Pay Merchant Identity certificate: the TLS client certificate of merchant
    /// validation, never a key that decrypts tokens.
    public static let merchantIdentityCertificate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 31]
    /// The `UID` attribute in the merchant certificate's subject (holds the merchant id in clear).
    public static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
}

/// A certificate parsed once, with what the checks read from it precomputed. A class: it is shared
/// by every token that carries the certificate.
final class ParsedCertificate: Sendable {
    let certificate: Certificate
    let der: [UInt8]
    let sha256: [UInt8]
    /// The issuer and subject Names and the serial number's content octets, as encoded.
    let issuerDER: ArraySlice<UInt8>
    let subjectDER: ArraySlice<UInt8>
    let serialNumberBytes: ArraySlice<UInt8>
    let notValidBefore: Date
    let notValidAfter: Date
    let hasLeafMarker: Bool
    let hasIntermediateMarker: Bool
    let signingKey: SigningKey?
    /// `CN=...` or the whole subject, for messages.
    let displayName: String
    /// The validity period as RFC 3339 text, for messages.
    let notValidBeforeText: String
    let notValidAfterText: String
    /// The serial number in upper-case hex.
    let serialNumberText: String
    /// Report text that names only this certificate, written once (the same certificate signs
    /// token after token): `applepay.signature.cms`'s details and `applepay.signature.signer`'s
    /// and `applepay.signature.markerOIDs`' pass messages.
    let texts: Texts

    struct Texts: Sendable {
        /// `applepay.signature.cms`'s details when this is the leaf.
        let leafDetails: [String: String]
        /// `applepay.signature.cms`'s pass message for a SignedData of two certificates (Apple's) with this leaf.
        let twoCertificatesMessage: String
        /// `applepay.signature.signer`'s pass message for this leaf and its key.
        let signerMessage: String?
        /// `applepay.signature.markerOIDs`' pass message when this is the intermediate.
        let markersMessage: String
        /// `applepay.signature.certificateValidity`'s details when this certificate expires first.
        let validUntilDetails: [String: String]
        /// `applepay.signature.certificateValidity`'s pass messages when this is the leaf: with an
        /// intermediate, and without.
        let validityMessage: String
        let validityMessageWithoutIntermediate: String

        init(displayName: String, serialHex: String, signingKey: SigningKey?, notValidAfterText: String) {
            leafDetails = ["leaf": displayName, "leafSerial": serialHex]
            twoCertificatesMessage = SignatureCMSCheck.passMessage(certificates: 2, leafName: displayName)
            switch signingKey {
            case .p256: signerMessage = SignerCheck.ecPassMessage(leafName: displayName)
            case .rsa(let key): signerMessage = SignerCheck.rsaPassMessage(leafName: displayName, bits: key.keySizeInBits)
            case nil: signerMessage = nil
            }
            markersMessage = MarkerOIDsCheck.passMessage(intermediateName: displayName)
            validUntilDetails = ["validUntil": notValidAfterText]
            validityMessage = CertificateValidityCheck.passMessage(withIntermediate: true, leafNotAfter: notValidAfterText)
            validityMessageWithoutIntermediate = CertificateValidityCheck.passMessage(withIntermediate: false, leafNotAfter: notValidAfterText)
        }
    }

    enum SigningKey: Sendable {
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)

        var algorithmName: String {
            switch self {
            case .p256: return "EC P-256"
            case .rsa(let key): return "RSA-\(key.keySizeInBits)"
            }
        }
    }

    init(der: [UInt8]) throws {
        let certificate = try Certificate(derEncoded: der)
        self.certificate = certificate
        self.der = der
        self.sha256 = Array(SHA256.hash(data: der))
        self.notValidBefore = certificate.notValidBefore
        self.notValidAfter = certificate.notValidAfter
        self.hasLeafMarker = certificate.extensions[oid: ApplePayOID.leafMarker] != nil
        self.hasIntermediateMarker = certificate.extensions[oid: ApplePayOID.intermediateMarker] != nil
        if let p256 = P256.Signing.PublicKey(certificate.publicKey) {
            self.signingKey = .p256(p256)
        } else if let rsa = _RSA.Signing.PublicKey(certificate.publicKey) {
            self.signingKey = .rsa(rsa)
        } else {
            self.signingKey = nil
        }
        self.displayName = Self.displayName(certificate.subject)
        self.notValidBeforeText = certificate.notValidBefore.rfc3339
        self.notValidAfterText = certificate.notValidAfter.rfc3339
        self.serialNumberText = Hex.encode(certificate.serialNumber.bytes, uppercase: true)
        self.texts = Texts(displayName: displayName, serialHex: serialNumberText, signingKey: signingKey, notValidAfterText: notValidAfterText)
        // TBSCertificate: [0] version?, serialNumber, signature, issuer, validity, subject, ...
        let scanner = BERScanner(bytes: der)
        guard let tbs = try scanner.children(of: try scanner.root()).first else {
            throw CMSParseError(.malformedCMS, "not a certificate")
        }
        var fields = try scanner.children(of: tbs)
        if fields.first?.tag == 0xA0 { fields.removeFirst() }
        guard fields.count >= 6, fields[0].tag == 0x02, fields[2].tag == 0x30, fields[4].tag == 0x30 else {
            throw CMSParseError(.malformedCMS, "not a TBSCertificate")
        }
        self.serialNumberBytes = der[fields[0].content]
        self.issuerDER = der[fields[2].range]
        self.subjectDER = der[fields[4].range]
    }

    /// True if this certificate's subject is `other`'s issuer: the encoded names are equal, or
    /// (for encodings that differ but mean the same) the parsed names are.
    func issued(_ other: ParsedCertificate) -> Bool {
        subjectDER.elementsEqual(other.issuerDER) || certificate.subject == other.certificate.issuer
    }

    static func displayName(_ name: DistinguishedName) -> String {
        for rdn in name {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                return attribute.value.description
            }
        }
        return name.description
    }

    var serialHex: String { serialNumberText }

    func matches(_ identifier: CMSSignerIdentifier) -> Bool {
        switch identifier {
        case .issuerAndSerialNumber(let issuer, let serial):
            guard serialNumberBytes.elementsEqual(serial) else { return false }
            if issuerDER.elementsEqual(issuer) { return true }
            guard let name = try? DistinguishedName.parse(der: issuer) else { return false }
            return certificate.issuer == name
        case .subjectKeyIdentifier(let ski):
            guard let own = try? certificate.extensions.subjectKeyIdentifier else { return false }
            return own.keyIdentifier.elementsEqual(ski)
        }
    }
}

/// Parsed certificates by DER, so the certificates Apple repeats in every token are parsed once.
///
/// Bounded: when full it starts over (Apple uses a handful of certificates at any time).
final class CertificateParseCache: Sendable {
    private let entries = LockedBox<[DERKey: ParsedCertificate]>([:])
    private let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func certificate(der: ArraySlice<UInt8>) throws -> ParsedCertificate {
        if let hit = entries.withLock({ $0[DERKey(der)] }) { return hit }
        let parsed = try ParsedCertificate(der: Array(der))
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[DERKey(parsed.der[...])] = parsed
        }
        return parsed
    }
}

/// Encoded bytes as a dictionary key. Hashes the length and the last 64 bytes (for a certificate,
/// its signature, which differs between certificates); equality compares every byte.
struct DERKey: Hashable, @unchecked Sendable {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.suffix(64).withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (lhs: DERKey, rhs: DERKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        guard !lhs.bytes.isEmpty else { return true }
        return lhs.bytes.withUnsafeBytes { l in
            rhs.bytes.withUnsafeBytes { r in
                guard let left = l.baseAddress, let right = r.baseAddress else { return false }
                return memcmp(left, right, l.count) == 0
            }
        }
    }
}

/// A value behind a lock (NSLock: available on every platform the package builds for).
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension DistinguishedName {
    /// A Name from its DER (a SEQUENCE), through the DERParseable conformance: a plain
    /// `DistinguishedName(derEncoded:)` picks the deprecated implicitly tagged one.
    static func parse(der bytes: ArraySlice<UInt8>) throws -> DistinguishedName {
        let parse: (ASN1Node) throws -> DistinguishedName = DistinguishedName.init(derEncoded:)
        return try parse(try DER.parse(bytes))
    }
}
