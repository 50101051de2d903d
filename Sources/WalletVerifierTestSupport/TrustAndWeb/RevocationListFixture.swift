import Crypto
import Foundation
import SwiftASN1
import WalletCBOR
import WalletCOSE
import X509

/// A revocation list signer as Apple describes it: a leaf certificate issued by an intermediate CA
/// that the IACA issued, both carried in the list's x5chain. Built on an ``MdocPKI`` (the trusted
/// root) or on a root of its own (an untrusted signer).
public struct RevocationSignerPKI: Sendable {
    /// The revocation CA's private key.
    public let intermediateKey: P256.Signing.PrivateKey
    /// The revocation CA certificate, issued by the root.
    public let intermediate: Certificate
    /// The revocation list signer's private key, which signs the lists.
    public let signerKey: P256.Signing.PrivateKey
    /// The revocation list signer certificate, issued by ``intermediate``.
    public let signer: Certificate

    /// The validity of the built certificates.
    public struct Options: Sendable {
        /// The start of both certificates' validity.
        public var notBefore = Date(timeIntervalSince1970: 1_600_000_000)  // 2020-09-13
        /// The end of the intermediate's validity, and of the signer's unless ``signerNotAfter`` is set.
        public var notAfter = Date(timeIntervalSince1970: 2_000_000_000)  // 2033-05-18
        /// The end of the signer's validity; nil means ``notAfter``.
        public var signerNotAfter: Date?
        /// Both certificates valid from 2020-09-13 to 2033-05-18.
        public init() {}
    }

    /// A signer chaining to `root` (the IACA of an ``MdocPKI``, normally).
    public init(rootKey: P256.Signing.PrivateKey, root: Certificate, options: Options = Options()) throws {
        intermediateKey = P256.Signing.PrivateKey()
        signerKey = P256.Signing.PrivateKey()
        let intermediateName = try FixtureCertificates.name("Test Issuing Authority", "Test Revocation CA")
        intermediate = try FixtureCertificates.issue(
            .authority(pathLength: 0), .init(intermediateKey.publicKey), subject: intermediateName, validity: (options.notBefore, options.notAfter),
            issuer: root.subject, issuerKey: .init(rootKey))
        signer = try FixtureCertificates.issue(
            .signer(), .init(signerKey.publicKey), subject: try FixtureCertificates.name("Test Issuing Authority", "Test Revocation List Signer"),
            validity: (options.notBefore, options.signerNotAfter ?? options.notAfter), issuer: intermediateName,
            issuerKey: .init(intermediateKey))
    }

    /// A signer chaining to an IACA's root.
    public init(pki: MdocPKI, options: Options = Options()) throws {
        try self.init(rootKey: pki.iacaKey, root: pki.iaca, options: options)
    }

    /// [signer, intermediate] as DER: what goes into x5chain.
    public var x5chain: [[UInt8]] { [Self.der(signer), Self.der(intermediate)] }

    /// A certificate's DER encoding.
    public static func der(_ certificate: Certificate) -> [UInt8] { FixtureCertificates.der(certificate) }
}

/// Builds signed revocation lists (CWT in COSE_Sign1): ISO/IEC 18013-5 identifier lists and IETF
/// Token Status Lists, with knobs for every failure path.
public struct RevocationListFixture: Sendable {
    /// The payload of a list: revoked identifiers or per-index statuses.
    public enum Content: Sendable {
        /// Identifiers that are revoked.
        case identifiers([[UInt8]])
        /// One status per index (0 valid, 1 invalid, 2 suspended, ...), packed `bits` per entry.
        case statuses([UInt8], bits: Int)
        /// Already packed (and not compressed) status bytes.
        case packedStatuses([UInt8], bits: Int)
    }

    /// What the list says: revoked identifiers or packed statuses.
    public var content: Content
    /// The list's URI: the default `sub`, and what MSO `status` entries point at.
    public var uri: String
    /// `sub`; nil leaves it out. Defaults to ``uri``.
    public var subject: String?
    /// The `iat` claim.
    public var issuedAt: Date
    /// The `exp` claim; nil leaves it out.
    public var expiresAt: Date?
    /// The `ttl` claim (65534), in seconds; nil leaves it out.
    public var timeToLive: UInt64?
    /// `typ` in the protected header; nil leaves it out.
    public var type: String?
    /// Compressed `lst` to use instead of compressing the statuses (zlib bombs, broken streams).
    public var compressedOverride: [UInt8]?
    /// Flip a bit of the signature.
    public var corruptSignature = false
    /// Put x5chain in the protected header (true, the default) or the unprotected one.
    public var protectedChain = true

    /// A list with `sub` set to `uri`, the `typ` that fits `content`, and a 12-hour `ttl` by default.
    public init(content: Content, uri: String, issuedAt: Date, expiresAt: Date? = nil, timeToLive: UInt64? = 43_200) {
        self.content = content
        self.uri = uri
        self.subject = uri
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.timeToLive = timeToLive
        switch content {
        case .identifiers: type = "application/identifierlist+cwt"
        case .statuses, .packedStatuses: type = "application/statuslist+cwt"
        }
    }

    /// The signed list.
    public func signed(key: P256.Signing.PrivateKey, x5chain: [[UInt8]]?) throws -> [UInt8] {
        var claims: [(CBORNode, CBORNode)] = [(.int(6), .unsigned(UInt64(issuedAt.timeIntervalSince1970)))]
        if let subject { claims.append((.int(2), .text(subject))) }
        if let expiresAt { claims.append((.int(4), .unsigned(UInt64(expiresAt.timeIntervalSince1970)))) }
        if let timeToLive { claims.append((.int(65534), .unsigned(timeToLive))) }
        switch content {
        case .identifiers(let ids):
            let entries = try CBORNode.map(ids.map { (CBORNode.bytes($0), try CBORNode.map([(CBORNode, CBORNode)]())) })
            claims.append((.int(65530), try .map(["identifiers": entries])))
        case .statuses(let statuses, let bits):
            let packed = Self.pack(statuses, bits: bits)
            claims.append((.int(65533), try .map(["bits": .int(bits), "lst": .bytes(compressedOverride ?? ZlibFixture.stored(packed))])))
        case .packedStatuses(let packed, let bits):
            claims.append((.int(65533), try .map(["bits": .int(bits), "lst": .bytes(compressedOverride ?? ZlibFixture.stored(packed))])))
        }
        let payload = Array(try CBORNode.map(claims).encodedBytes)
        var protected: [(CBORNode, CBORNode)] = []
        var unprotected: [(CBORNode, CBORNode)] = []
        if let type { protected.append((.int(16), .text(type))) }
        if let x5chain {
            let chain: CBORNode = x5chain.count == 1 ? .bytes(x5chain[0]) : .array(x5chain.map { .bytes($0) })
            if protectedChain { protected.append((.int(33), chain)) } else { unprotected.append((.int(33), chain)) }
        }
        let sign1 = try COSESign1.sign(payload: payload, key: .p256(key), protected: protected, unprotected: unprotected, tagged: true)
        var bytes = Array(sign1.node.encodedBytes)
        if corruptSignature { bytes[bytes.count - 1] ^= 0x01 }
        return bytes
    }

    /// A list signed by a ``RevocationSignerPKI`` (leaf and intermediate in x5chain).
    public func signed(by signer: RevocationSignerPKI) throws -> [UInt8] {
        try signed(key: signer.signerKey, x5chain: signer.x5chain)
    }

    /// Packs statuses `bits` per entry, least significant bits first (Token Status List §4.1).
    public static func pack(_ statuses: [UInt8], bits: Int) -> [UInt8] {
        let perByte = 8 / bits
        var out = [UInt8](repeating: 0, count: (statuses.count + perByte - 1) / perByte)
        for (index, status) in statuses.enumerated() {
            out[index / perByte] |= (status & UInt8((1 << bits) - 1)) << UInt8((index % perByte) * bits)
        }
        return out
    }

    /// The MSO `status` entry for an identifier list.
    public static func identifierListStatus(id: [UInt8], uri: String, certificate: [UInt8]? = nil) throws -> CBORNode {
        var info: [(CBORNode, CBORNode)] = [(.text("id"), .bytes(id)), (.text("uri"), .text(uri))]
        if let certificate { info.append((.text("certificate"), .bytes(certificate))) }
        return try .map(["identifier_list": try .map(info)])
    }

    /// The MSO `status` entry for a status list.
    public static func statusListStatus(index: UInt64, uri: String) throws -> CBORNode {
        try .map(["status_list": try .map(["idx": .unsigned(index), "uri": .text(uri)])])
    }
}

/// zlib streams for fixtures, written without a compressor (stored DEFLATE blocks), so the fixture
/// does not depend on the decoder under test.
public enum ZlibFixture {
    /// A zlib stream of `data` in stored (uncompressed) DEFLATE blocks, with its Adler-32 checksum.
    public static func stored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            out.append(offset + count == data.count ? 1 : 0)
            out += [UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        let sum = b << 16 | a
        return out + [UInt8(sum >> 24), UInt8((sum >> 16) & 0xff), UInt8((sum >> 8) & 0xff), UInt8(sum & 0xff)]
    }
}

extension ZlibFixture {
    /// A valid zlib stream of `count` zero bytes made of fixed-Huffman back-references (258 bytes
    /// per 13 bits): a "zlib bomb" that is small compressed and large decompressed.
    public static func zeros(count: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman
        writer.writeCode(0x30, length: 8)  // literal 0
        var produced = 1
        while count - produced >= 258 {
            writer.writeCode(0xC5, length: 8)  // symbol 285: length 258
            writer.writeCode(0, length: 5)  // distance code 0: distance 1
            produced += 258
        }
        while produced < count {
            writer.writeCode(0x30, length: 8)
            produced += 1
        }
        writer.writeCode(0, length: 7)  // end of block (256)
        let a: UInt32 = 1
        let b = UInt32(count % 65_521)
        let sum = b << 16 | a
        return [0x78, 0x01] + writer.finished + [UInt8(sum >> 24), UInt8((sum >> 16) & 0xff), UInt8((sum >> 8) & 0xff), UInt8(sum & 0xff)]
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var count = 0

        /// Writes `bits` bits of `value`, least significant first (DEFLATE header fields, extra bits).
        mutating func write(_ value: UInt32, bits: Int) {
            for i in 0..<bits { push((value >> UInt32(i)) & 1) }
        }

        /// Writes a Huffman code, most significant bit first.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) { push((code >> UInt32(i)) & 1) }
        }

        mutating func push(_ bit: UInt32) {
            current |= bit << UInt32(count)
            count += 1
            if count == 8 {
                bytes.append(UInt8(current))
                current = 0
                count = 0
            }
        }

        var finished: [UInt8] { count == 0 ? bytes : bytes + [UInt8(current)] }
    }
}

/// An issuing authority like Apple's for passports: an IACA whose path length allows one
/// intermediate (the revocation CA), a document signer it issues directly, and a revocation list
/// signer under the intermediate.
public struct PassportPKI: Sendable {
    /// The IACA's private key.
    public let iacaKey: P256.Signing.PrivateKey
    /// The self-signed IACA certificate (path length 1).
    public let iaca: Certificate
    /// The document signer's private key, which signs the MSO.
    public let dsKey: P256.Signing.PrivateKey
    /// The document signer certificate, issued directly by ``iaca``.
    public let ds: Certificate
    /// The revocation CA and list signer under ``iaca``.
    public let revocation: RevocationSignerPKI

    /// Generates fresh keys and builds the IACA, document signer and revocation signer.
    /// `country` is the countryName of the IACA and document signer (nil leaves it out); throws when a certificate cannot be built.
    public init(country: String? = "US", revocationOptions: RevocationSignerPKI.Options = .init()) throws {
        iacaKey = P256.Signing.PrivateKey()
        dsKey = P256.Signing.PrivateKey()
        let iacaName = try DistinguishedName {
            if let country { CountryName(country) }
            OrganizationName("Test Passport Authority")
            CommonName("Test Passport IACA")
        }
        let dsName = try DistinguishedName {
            if let country { CountryName(country) }
            OrganizationName("Test Passport Authority")
            CommonName("Test Passport Document Signer")
        }
        let notBefore = Date(timeIntervalSince1970: 1_600_000_000)
        let notAfter = Date(timeIntervalSince1970: 2_000_000_000)
        let iacaKeyIdentifier = SubjectKeyIdentifier(hash: .init(iacaKey.publicKey)).keyIdentifier
        let signerPublicKey = dsKey.publicKey
        iaca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(iacaKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter,
            issuer: iacaName, subject: iacaName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 1))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(keyIdentifier: iacaKeyIdentifier)
                AnnexBExtensions.issuerAltName(email: "iaca@passport.example")
                AnnexBExtensions.crlDistributionPoint("https://passport.example/iaca.crl")
            },
            issuerPrivateKey: .init(iacaKey))
        // Annex B: a document signer valid at most 457 days, around the fixtures' signing time.
        let dsNotBefore = MdocPKI.dsNotBefore
        ds = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(dsKey.publicKey),
            notValidBefore: dsNotBefore, notValidAfter: dsNotBefore.addingTimeInterval(MdocPKI.dsValidity),
            issuer: iacaName, subject: dsName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                Critical(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])]))
                SubjectKeyIdentifier(hash: .init(signerPublicKey))
                AuthorityKeyIdentifier(keyIdentifier: iacaKeyIdentifier)
                AnnexBExtensions.issuerAltName(email: "iaca@passport.example")
                AnnexBExtensions.crlDistributionPoint("https://passport.example/crl")
            },
            issuerPrivateKey: .init(iacaKey))
        revocation = try RevocationSignerPKI(rootKey: iacaKey, root: iaca, options: revocationOptions)
    }

    /// The document signer certificate's DER encoding, as x5chain carries it.
    public var dsDER: [UInt8] { RevocationSignerPKI.der(ds) }
    /// The IACA certificate in PEM, for writing trust-root files.
    public var iacaPEM: String { try! iaca.serializeAsPEM().pemString }
}
