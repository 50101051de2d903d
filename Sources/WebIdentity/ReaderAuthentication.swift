import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import X509

/// ISO/IEC 18013-5 §9.1.4 mdoc reader authentication: what a reader signs so that a wallet knows who
/// asks.
///
/// - Per DocRequest (DeviceRequest version "1.0", the default): `readerAuth` is a COSE_Sign1 with a
///   detached payload over
///   `ReaderAuthenticationBytes = #6.24(bstr .cbor ["ReaderAuthentication", SessionTranscript, ItemsRequestBytes])`,
///   where `ItemsRequestBytes` is the exact tag-24 item placed in that DocRequest.
/// - Once for all DocRequests (DeviceRequest version "1.1", ISO/IEC 18013-5 second edition):
///   `readerAuthAll` is an array of COSE_Sign1, each over
///   `ReaderAuthenticationAllBytes = #6.24(bstr .cbor ["ReaderAuthenticationAll", SessionTranscript,
///   [+ ItemsRequestBytes], DeviceRequestInfoBytes / null])` — the items requests of every DocRequest
///   in order, and the DeviceRequest's `deviceRequestInfo` tag-24 item, or null when it has none.
///   The ISO text is not available to us; this four-element form is the one that independent
///   second-edition implementations agree on: walt.id's verifier (`ReaderAuthenticationAll(context,
///   sessionTranscript, itemsRequestBytesAll, docRequestsInfoBytes)`), the California DMV / Digital
///   Bazaar reader (`["ReaderAuthenticationAll", SessionTranscript, [ItemsRequestBytes…],
///   DeviceRequestInfoBytes / null]`, stating that it follows Multipaz's `deviceRequestInfo ?: null`),
///   and a Go reader that signs `readerAuthenticationAll(transcript, items, deviceRequestInfo)`.
///   Multipaz's `DeviceRequest.verifyReaderAuthentication` as of September 2025 (the snapshot we could
///   read) still built the three-element array without the last member; a request signed that way
///   fails `reader.auth.signature` here, and the message says which structure was expected.
///
/// The protected header is `{1: alg}` (ES256 for a P-256 key, ES384 for P-384); the unprotected header
/// carries `{33: x5chain}`: one byte string for a single certificate, an array (leaf first) otherwise.
public enum ReaderAuthentication {
    /// `#6.24(bstr .cbor ["ReaderAuthentication", SessionTranscript, ItemsRequestBytes])`, built from the
    /// transcript's bytes and the ItemsRequestBytes (the whole tag-24 item) as they are.
    public static func bytes(transcript: SessionTranscript, itemsRequestBytes: ArraySlice<UInt8>) -> [UInt8] {
        embed(rawArray([CBORNode.text("ReaderAuthentication").encodedBytes, transcript.encodedBytes, itemsRequestBytes]))
    }

    /// `#6.24(bstr .cbor ["ReaderAuthenticationAll", SessionTranscript, [+ ItemsRequestBytes], DeviceRequestInfoBytes / null])`.
    public static func allBytes(transcript: SessionTranscript, itemsRequestBytes: [ArraySlice<UInt8>], deviceRequestInfoBytes: ArraySlice<UInt8>?)
        -> [UInt8]
    {
        let items = rawArray(itemsRequestBytes)
        let info = deviceRequestInfoBytes ?? CBORNode.null.encodedBytes
        return embed(rawArray([CBORNode.text("ReaderAuthenticationAll").encodedBytes, transcript.encodedBytes, items[...], info]))
    }

    /// `#6.24(bstr .cbor item)` around an encoded item.
    static func embed(_ encoded: [UInt8]) -> [UInt8] {
        Array(CBORNode.tagged(24, .bytes(encoded)).encodedBytes)
    }

    /// A definite-length array head and the given encoded items, concatenated as they are.
    static func rawArray(_ items: [ArraySlice<UInt8>]) -> [UInt8] {
        var out: [UInt8]
        switch items.count {
        case 0..<24: out = [0x80 | UInt8(items.count)]
        case 24..<256: out = [0x98, UInt8(items.count)]
        default: out = [0x99, UInt8(items.count >> 8 & 0xff), UInt8(items.count & 0xff)]
        }
        for item in items { out.append(contentsOf: item) }
        return out
    }
}

/// A reader-authentication key with its certificate chain (leaf first): signs DeviceRequests.
public struct ReaderAuthSigner: Sendable {
    /// The P-256 or P-384 private key that signs, matching the leaf certificate.
    public let key: COSESigningKey
    /// DER certificates, leaf first.
    public let chain: [[UInt8]]
    /// The parsed leaf.
    public let leaf: Certificate

    /// Checks that the key is P-256 or P-384 and matches the leaf certificate's public key.
    public init(key: COSESigningKey, chain: [[UInt8]]) throws(ReaderAuthError) {
        guard let first = chain.first else { throw ReaderAuthError("no reader certificate was given") }
        switch key {
        case .p256, .p384: break
        default: throw ReaderAuthError("the reader key must be a P-256 or P-384 key (ES256 or ES384)")
        }
        let leaf: Certificate
        do { leaf = try Certificate(derEncoded: first) } catch { throw ReaderAuthError("the first reader certificate does not parse as X.509") }
        let matches: Bool
        switch key {
        case .p256(let k): matches = P256.Signing.PublicKey(leaf.publicKey)?.rawRepresentation == k.publicKey.rawRepresentation
        case .p384(let k): matches = P384.Signing.PublicKey(leaf.publicKey)?.rawRepresentation == k.publicKey.rawRepresentation
        default: matches = false
        }
        guard matches else {
            throw ReaderAuthError(
                "the reader key does not match the public key of the first reader certificate (\(leaf.subject)); give the leaf certificate of this key first"
            )
        }
        for (index, der) in chain.enumerated().dropFirst() where (try? Certificate(derEncoded: der)) == nil {
            throw ReaderAuthError("reader certificate \(index) does not parse as X.509")
        }
        self.key = key
        self.chain = chain
        self.leaf = leaf
    }

    /// A signer from file contents: a P-256 or P-384 private key (PEM SEC1 or PKCS#8, or a private
    /// JWK) and certificate files (PEM, one or more blocks, or DER), leaf first.
    public static func load(keyContents: [UInt8], keyName: String, certificateFiles: [(name: String, contents: [UInt8])]) throws(ReaderAuthError)
        -> ReaderAuthSigner
    {
        let key = try signingKey(contents: keyContents, name: keyName)
        var chain: [[UInt8]] = []
        for file in certificateFiles {
            do {
                for certificate in try IACATrustStore.certificates(in: file.contents, name: file.name) {
                    var serializer = DER.Serializer()
                    try serializer.serialize(certificate)
                    chain.append(serializer.serializedBytes)
                }
            } catch {
                throw ReaderAuthError("reader certificate \(file.name): \(error)")
            }
        }
        return try ReaderAuthSigner(key: key, chain: chain)
    }

    /// A P-256 or P-384 signing key: PEM (SEC1 or PKCS#8) or a private JWK.
    public static func signingKey(contents: [UInt8], name: String) throws(ReaderAuthError) -> COSESigningKey {
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                object["kty"] as? String == "EC", let curve = object["crv"] as? String, let d = (object["d"] as? String).flatMap(Base64.decodeURL)
            else {
                throw ReaderAuthError("\(name): not a private EC JWK (kty EC, crv, d)")
            }
            switch curve {
            case "P-256": if let key = try? P256.Signing.PrivateKey(rawRepresentation: d) { return .p256(key) }
            case "P-384": if let key = try? P384.Signing.PrivateKey(rawRepresentation: d) { return .p384(key) }
            default: throw ReaderAuthError("\(name): the JWK curve is \(curve); reader keys are P-256 or P-384")
            }
            throw ReaderAuthError("\(name): the JWK's d is not a \(curve) private key")
        }
        if let block = PEM.firstBlock(labeled: PEM.privateKeyLabels, in: text) {
            if let key = try? P256.Signing.PrivateKey(derRepresentation: block.der) { return .p256(key) }
            if let key = try? P384.Signing.PrivateKey(derRepresentation: block.der) { return .p384(key) }
        }
        throw ReaderAuthError("\(name): not a P-256 or P-384 private key (PEM SEC1 or PKCS#8, or a private JWK)")
    }

    /// Where the leaf breaks the reader-authentication certificate profile of ISO/IEC 18013-5 Annex B
    /// (EKU 1.0.18013.5.1.6, keyUsage digitalSignature, not a CA, valid at `time`); empty when it
    /// keeps it. Configuration warns with these; it does not refuse them.
    public func profileViolations(at time: Date) -> [String] {
        ReaderCertificateProfile.violations(leaf, at: time)
    }

    /// The x5chain header value: one byte string for a single certificate, an array otherwise.
    var x5chain: CBORNode {
        chain.count == 1 ? .bytes(chain[0]) : .array(chain.map { .bytes($0) })
    }

    /// A COSE_Sign1 with a detached payload over `bytes` (ReaderAuthenticationBytes or ...AllBytes).
    public func sign(_ bytes: [UInt8]) throws -> CBORNode {
        try COSESign1.sign(payload: bytes, key: key, unprotected: [(.int(COSEHeaderLabel.x5chain), x5chain)], detached: true).node
    }
}

/// The reader-authentication certificate profile of ISO/IEC 18013-5 Annex B (the mdoc reader
/// authentication certificate): extended key usage 1.0.18013.5.1.6, keyUsage digitalSignature, not a
/// CA, and valid at the time of use.
public enum ReaderCertificateProfile {
    /// The extended key usage OID of mdoc reader authentication, 1.0.18013.5.1.6.
    public static let readerAuthEKU: ASN1ObjectIdentifier = [1, 0, 18013, 5, 1, 6]

    /// The ways `certificate` breaks the profile at `time`, as readable phrases; empty when it follows it.
    public static func violations(_ certificate: Certificate, at time: Date) -> [String] {
        var problems: [String] = []
        do {
            if let eku = try certificate.extensions.extendedKeyUsage {
                if !eku.contains(ExtendedKeyUsage.Usage(oid: readerAuthEKU)) {
                    problems.append("its extended key usage lacks 1.0.18013.5.1.6 (mdoc reader authentication)")
                }
            } else {
                problems.append("it has no extended key usage (1.0.18013.5.1.6 is required)")
            }
        } catch { problems.append("its extended key usage extension is malformed") }
        do {
            if let usage = try certificate.extensions.keyUsage {
                if !usage.digitalSignature { problems.append("its keyUsage lacks digitalSignature") }
            } else {
                problems.append("it has no keyUsage extension (digitalSignature is required)")
            }
        } catch { problems.append("its keyUsage extension is malformed") }
        if case .isCertificateAuthority = (try? certificate.extensions.basicConstraints) ?? .notCertificateAuthority {
            problems.append("it is a CA certificate (basicConstraints cA)")
        }
        if time < certificate.notValidBefore || time > certificate.notValidAfter {
            problems.append(
                "it is not valid at \(RFC3339.format(time)) (valid from \(RFC3339.format(certificate.notValidBefore)) to \(RFC3339.format(certificate.notValidAfter)))"
            )
        }
        return problems
    }
}

/// A DeviceRequest, reader key or reader certificate that cannot be read or used; the description says why.
public typealias ReaderAuthError = CodedError<ReaderAuthErrorDomain>

/// The domain of ``ReaderAuthError``: DeviceRequests, reader keys and reader certificates.
public enum ReaderAuthErrorDomain: ErrorDomain {
    /// `ReaderAuthError`.
    public static let name = "ReaderAuthError"
    /// ``ErrorCode/invalidKey``.
    public static let defaultCode = ErrorCode.invalidKey
}
