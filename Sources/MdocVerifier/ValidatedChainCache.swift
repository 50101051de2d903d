import Crypto
import Foundation
import SwiftASN1
import Synchronization
import WalletCOSE
import X509

/// Per-verifier caches, so that one document signer (which signs many documents) costs one
/// certificate parse and one chain validation:
/// - parsed x5chain certificates with their subject text and COSE key, keyed by the DER bytes;
/// - validated DS → IACA chains (and pinned document signers), keyed by the parsed x5chain
///   certificates and the docType, reused only at verification times inside every certificate's
///   validity period (a verifier has one trust store, so roots cannot change underneath).
final class ValidatedChainCache: Sendable {
    /// A validated chain and what the checks derive from it. A class: checks share it by reference.
    final class Entry: Sendable {
        let chain: [Certificate]
        /// Subject texts of the chain, leaf first.
        let subjects: [String]
        /// Annex B profile violations of this chain (computed once).
        let profileViolations: [String]
        /// The Annex B rules Apple's test issuer breaks, broken by this chain (warnings or failures
        /// by policy).
        let profileWarnings: [String]
        /// countryName of the document signer and of the root (computed once).
        let countryNames: (documentSigner: String?, iaca: String?)
        let notBefore: Date
        let notAfter: Date
        /// The document signer is itself a trust anchor (chain of one).
        let pinned: Bool
        /// The IACA's pathLenConstraint rule for an mDL-style document and for a passport (computed
        /// once; nil when it holds or the chain has no IACA).
        let pathLengthViolations: (document: String?, passport: String?)
        /// The trust-store anchor the chain ends at (the root, or the pinned signer), with its provenance.
        let anchor: IACATrustStore.Anchor?

        init(chain: [Certificate], pinned: Bool, anchor: IACATrustStore.Anchor? = nil) {
            self.chain = chain
            self.pinned = pinned
            self.anchor = anchor
            notBefore = chain.map(\.notValidBefore).max() ?? .distantPast
            notAfter = chain.map(\.notValidAfter).min() ?? .distantFuture
            profileViolations =
                chain.count == 1
                ? CertificateProfileCheck.documentSignerViolations(chain[0])
                : CertificateProfileCheck.violations(documentSigner: chain[0], iaca: chain[chain.count - 1])
            profileWarnings = CertificateProfileCheck.extendedViolations(
                documentSigner: chain[0], iaca: chain.count == 1 ? nil : chain[chain.count - 1])
            countryNames = (IssuerCountryCheck.countryName(chain[0].subject), IssuerCountryCheck.countryName(chain[chain.count - 1].subject))
            subjects = chain.map(\.subject.description)
            if chain.count > 1, let iaca = chain.last {
                pathLengthViolations = (
                    CertificateProfileCheck.pathLengthViolation(iaca: iaca, passport: false),
                    CertificateProfileCheck.pathLengthViolation(iaca: iaca, passport: true)
                )
            } else {
                pathLengthViolations = (nil, nil)
            }
        }
    }

    /// A chain as received: the parsed x5chain certificates (compared by identity; the key holds
    /// them, so an identity cannot be reused by another certificate while the key exists) and the
    /// docType (the trust store's roots depend on it).
    struct Key: Hashable {
        let certificates: [ParsedCertificate]
        let docType: String

        static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.certificates.count == rhs.certificates.count, lhs.docType == rhs.docType else { return false }
            for (a, b) in zip(lhs.certificates, rhs.certificates) where a !== b { return false }
            return true
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(certificates.count)
            for certificate in certificates { hasher.combine(ObjectIdentifier(certificate)) }
            hasher.combine(docType)
        }
    }

    /// A parsed certificate with what the checks need from it. A class: one parse is shared by
    /// every document it signs, and handing it on is one retain.
    final class ParsedCertificate: @unchecked Sendable {
        let certificate: Certificate
        let subject: String
        let key: COSEPublicKey?
        /// The validity period, read from the certificate once (each read of `Certificate`'s dates
        /// converts its ASN.1 time again).
        let notValidBefore: Date
        let notValidAfter: Date

        init(certificate: Certificate, subject: String, key: COSEPublicKey?) {
            self.certificate = certificate
            self.subject = subject
            self.key = key
            self.notValidBefore = certificate.notValidBefore
            self.notValidAfter = certificate.notValidAfter
        }
    }

    /// DER bytes as a dictionary key. Equality compares every byte; the hash reads the length and
    /// the last 64 bytes (the signature, which differs between certificates), so a lookup does not
    /// hash the whole certificate.
    struct DERKey: Hashable {
        let der: ArraySlice<UInt8>

        static func == (lhs: DERKey, rhs: DERKey) -> Bool {
            guard lhs.der.count == rhs.der.count else { return false }
            guard !lhs.der.isEmpty else { return true }
            return lhs.der.withUnsafeBytes { a in rhs.der.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(der.count)
            der.suffix(64).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct State {
        var chains: [Key: Entry] = [:]
        var certificates: [DERKey: ParsedCertificate] = [:]
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    func chain(for key: Key, at time: Date) -> Entry? {
        state.withLock { state in
            guard let entry = state.chains[key], entry.notBefore <= time, time <= entry.notAfter else { return nil }
            return entry
        }
    }

    @discardableResult
    func store(_ chain: [Certificate], pinned: Bool = false, anchor: IACATrustStore.Anchor? = nil, for key: Key) -> Entry {
        let entry = Entry(chain: chain, pinned: pinned, anchor: anchor)
        state.withLock { state in
            if state.chains.count >= capacity { state.chains.removeAll(keepingCapacity: true) }
            state.chains[key] = entry
        }
        return entry
    }

    /// The parsed certificate for DER bytes, parsing once. Nil when the bytes are not a certificate.
    func certificate(der: ArraySlice<UInt8>) -> ParsedCertificate? {
        if let cached = state.withLock({ $0.certificates[DERKey(der: der)] }) { return cached }
        // The cache keeps its own copy of the bytes, not a slice of the response they came in.
        let owned = Array(der)
        guard let certificate = try? Certificate(derEncoded: owned) else { return nil }
        let key = COSEPublicKey(certificate: certificate)
        let parsed = ParsedCertificate(certificate: certificate, subject: certificate.subject.description, key: key)
        state.withLock { state in
            if state.certificates.count >= capacity { state.certificates.removeAll(keepingCapacity: true) }
            state.certificates[DERKey(der: owned[...])] = parsed
        }
        return parsed
    }
}
