import Crypto
import Foundation
import Synchronization
import WalletCOSE
import X509

/// Per-verifier caches, so that one document signer (which signs many documents) costs one
/// certificate parse and one chain validation:
/// - parsed x5chain certificates with their subject text and COSE key, keyed by the DER bytes;
/// - validated DS → IACA chains, reused only at verification times inside every certificate's
///   validity period (a verifier has one trust store, so roots cannot change underneath).
final class ValidatedChainCache: Sendable {
    struct Entry {
        let chain: [Certificate]
        /// Subject texts of the chain, leaf first.
        let subjects: [String]
        /// Annex B profile violations of this chain (computed once).
        let profileViolations: [String]
        /// countryName of the document signer and of the root (computed once).
        let countryNames: (documentSigner: String?, iaca: String?)
        let notBefore: Date
        let notAfter: Date
    }

    struct Key: Hashable {
        let digest: SHA256Digest
        let docType: String
    }

    /// A parsed certificate with what the checks need from it.
    struct ParsedCertificate: @unchecked Sendable {
        let certificate: Certificate
        let subject: String
        let key: COSEPublicKey?
    }

    /// DER bytes as a dictionary key, hashed as one block (`[UInt8]` hashes byte by byte).
    struct DERKey: Hashable {
        let der: [UInt8]

        func hash(into hasher: inout Hasher) {
            der.withUnsafeBytes { hasher.combine(bytes: $0) }
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

    static func key(certificates ders: [[UInt8]], docType: String) -> Key {
        var hasher = SHA256()
        for der in ders {
            withUnsafeBytes(of: UInt32(der.count).bigEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: der)
        }
        return Key(digest: hasher.finalize(), docType: docType)
    }

    func chain(for key: Key, at time: Date) -> Entry? {
        state.withLock { state in
            guard let entry = state.chains[key], entry.notBefore <= time, time <= entry.notAfter else { return nil }
            return entry
        }
    }

    @discardableResult
    func store(_ chain: [Certificate], for key: Key) -> Entry {
        let notBefore = chain.map(\.notValidBefore).max() ?? .distantPast
        let notAfter = chain.map(\.notValidAfter).min() ?? .distantFuture
        let violations = chain.count == 1 ? CertificateProfileCheck.documentSignerViolations(chain[0])
            : CertificateProfileCheck.violations(documentSigner: chain[0], iaca: chain[chain.count - 1])
        let countries = (IssuingCountryCheck.countryName(chain[0].subject), IssuingCountryCheck.countryName(chain[chain.count - 1].subject))
        let entry = Entry(chain: chain, subjects: chain.map(\.subject.description), profileViolations: violations, countryNames: countries,
                          notBefore: notBefore, notAfter: notAfter)
        state.withLock { state in
            if state.chains.count >= capacity { state.chains.removeAll(keepingCapacity: true) }
            state.chains[key] = entry
        }
        return entry
    }

    /// The parsed certificate for DER bytes, parsing once. Nil when the bytes are not a certificate.
    func certificate(der: [UInt8]) -> ParsedCertificate? {
        let derKey = DERKey(der: der)
        if let cached = state.withLock({ $0.certificates[derKey] }) { return cached }
        guard let certificate = try? Certificate(derEncoded: der) else { return nil }
        let key: COSEPublicKey?
        if let k = P256.Signing.PublicKey(certificate.publicKey) { key = .p256(k) }
        else if let k = P384.Signing.PublicKey(certificate.publicKey) { key = .p384(k) }
        else if let k = P521.Signing.PublicKey(certificate.publicKey) { key = .p521(k) }
        else { key = nil }
        let parsed = ParsedCertificate(certificate: certificate, subject: certificate.subject.description, key: key)
        state.withLock { state in
            if state.certificates.count >= capacity { state.certificates.removeAll(keepingCapacity: true) }
            state.certificates[derKey] = parsed
        }
        return parsed
    }
}
