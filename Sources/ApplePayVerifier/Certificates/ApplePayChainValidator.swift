import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// The shape Apple's spec requires of a signing chain: leaf (marker 1.2.840.113635.100.6.29) issued
/// by an intermediate (marker 1.2.840.113635.100.6.2.14) issued by the root. Used inside the
/// swift-certificates `Verifier` so that chain building only accepts paths through marked
/// certificates.
struct ApplePayMarkerOIDPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []
    /// 3 for leaf → intermediate → root; 2 when an already validated intermediate is the anchor.
    let expectedLength: Int

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == expectedLength else {
            return .failsToMeetPolicy(reason: "the chain has \(chain.count) certificates; Apple Pay chains are leaf → intermediate → root")
        }
        guard chain[0].extensions[oid: ApplePayOID.leafMarker] != nil else {
            return .failsToMeetPolicy(reason: "the leaf lacks marker OID 1.2.840.113635.100.6.29")
        }
        guard chain[1].extensions[oid: ApplePayOID.intermediateMarker] != nil else {
            return .failsToMeetPolicy(reason: "the intermediate lacks marker OID 1.2.840.113635.100.6.2.14")
        }
        return .meetsPolicy
    }
}

/// Validates leaf → intermediate → trust anchor with swift-certificates' `Verifier`
/// (`RFC5280Policy` at the verification time plus ``ApplePayMarkerOIDPolicy``) and remembers what it
/// validated, so the anchor's P-384 signature over the intermediate is checked once, not per token.
///
/// A cached result is reused only for the same certificates (by SHA-256 of their DER) and the same
/// anchor, and only for verification times inside every certificate's validity period: the
/// signatures and constraints the `Verifier` checked do not depend on time, expiry does.
/// Shared by every verification that uses it; safe to use concurrently.
public final class ApplePayChainCache: Sendable {
    /// SHA-256 of the anchor, of the leaf and of each other certificate, concatenated.
    struct ChainKey: Hashable {
        var digests: [UInt8]

        init(anchor: [UInt8], leaf: [UInt8], intermediates: [[UInt8]]) {
            digests = anchor + leaf
            for intermediate in intermediates { digests += intermediate }
        }

        func hash(into hasher: inout Hasher) {
            digests.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    struct IntermediateKey: Hashable {
        var anchor: [UInt8]
        var intermediate: [UInt8]
    }

    struct Validated: Sendable {
        let subjects: [String]
        /// `"leaf" → "intermediate" → "root"`, for messages.
        let path: String
        /// `applepay.signature.chain`'s message for this chain, written once.
        let validMessage: String
        let notBefore: Date
        let notAfter: Date

        init(subjects: [String], notBefore: Date, notAfter: Date) {
            self.subjects = subjects
            self.path = subjects.map { "\"\($0)\"" }.joined(separator: " → ")
            self.validMessage = "Chain \(path) is valid"
            self.notBefore = notBefore
            self.notAfter = notAfter
        }
    }

    private let chains = LockedBox<[ChainKey: Validated]>([:])
    private let intermediates = LockedBox<[IntermediateKey: Validated]>([:])
    private let capacity: Int
    let certificates: CertificateParseCache

    /// An empty cache of up to `capacity` chains and as many intermediates; a full table is emptied before the next entry.
    public init(capacity: Int = 256) {
        self.capacity = capacity
        self.certificates = CertificateParseCache(capacity: 64)
    }

    /// How many chains and validated intermediates are remembered (for tests and metrics).
    public var counts: (chains: Int, intermediates: Int) {
        (chains.withLock { $0.count }, intermediates.withLock { $0.count })
    }

    enum Outcome {
        /// The chain validated (its `path` is `"leaf" → "intermediate" → "root"`).
        case valid(Validated, cached: Bool)
        case invalid(String)
    }

    func validate(leaf: ParsedCertificate, candidates: [ParsedCertificate], anchor: ApplePayTrustAnchor, at time: Date) async -> Outcome {
        let key = ChainKey(anchor: anchor.parsed.sha256, leaf: leaf.sha256, intermediates: candidates.map(\.sha256))
        if let hit = chains.withLock({ $0[key] }), hit.notBefore <= time, time <= hit.notAfter {
            return .valid(hit, cached: true)
        }

        // An intermediate already validated up to this anchor: the leaf needs one signature check.
        for intermediate in candidates {
            let intermediateKey = IntermediateKey(anchor: anchor.parsed.sha256, intermediate: intermediate.sha256)
            guard let known = intermediates.withLock({ $0[intermediateKey] }), known.notBefore <= time, time <= known.notAfter else { continue }
            var verifier = Verifier(rootCertificates: CertificateStore([intermediate.certificate])) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                ApplePayMarkerOIDPolicy(expectedLength: 2)
            }
            if case .validCertificate = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore()) {
                let validated = Validated(
                    subjects: [leaf.displayName, intermediate.displayName, anchor.parsed.displayName],
                    notBefore: max(leaf.notValidBefore, known.notBefore), notAfter: min(leaf.notValidAfter, known.notAfter))
                remember(key, validated)
                return .valid(validated, cached: false)
            }
        }

        var verifier = Verifier(rootCertificates: CertificateStore([anchor.certificate])) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            ApplePayMarkerOIDPolicy(expectedLength: 3)
        }
        let result = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore(candidates.map(\.certificate)))
        switch result {
        case .validCertificate(let chain):
            let certificates = Array(chain)
            guard certificates.count == 3, let intermediate = candidates.first(where: { $0.certificate == certificates[1] }) else {
                return .invalid("the validated chain does not have the expected shape")
            }
            let notBefore = [leaf.notValidBefore, intermediate.notValidBefore, anchor.parsed.notValidBefore].max() ?? leaf.notValidBefore
            let notAfter = [leaf.notValidAfter, intermediate.notValidAfter, anchor.parsed.notValidAfter].min() ?? leaf.notValidAfter
            let validated = Validated(
                subjects: [leaf.displayName, intermediate.displayName, anchor.parsed.displayName], notBefore: notBefore, notAfter: notAfter)
            remember(key, validated)
            let intermediateValidity = Validated(
                subjects: [intermediate.displayName, anchor.parsed.displayName],
                notBefore: max(intermediate.notValidBefore, anchor.parsed.notValidBefore),
                notAfter: min(intermediate.notValidAfter, anchor.parsed.notValidAfter)
            )
            intermediates.withLock { entries in
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[IntermediateKey(anchor: anchor.parsed.sha256, intermediate: intermediate.sha256)] = intermediateValidity
            }
            return .valid(validated, cached: false)
        case .couldNotValidate(let failures):
            if let failure = failures.first {
                return .invalid(String(describing: failure.policyFailureReason))
            }
            return .invalid(Self.summarize(leaf: leaf, candidates: candidates, anchor: anchor))
        }
    }

    private func remember(_ key: ChainKey, _ value: Validated) {
        chains.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }

    private static func summarize(leaf: ParsedCertificate, candidates: [ParsedCertificate], anchor: ApplePayTrustAnchor) -> String {
        // No candidate chain reached policy evaluation: no issuer was found or no signature matched.
        let issuers = candidates.filter { $0.certificate.subject == leaf.certificate.issuer }
        if issuers.isEmpty {
            return "no certificate in the signature issued the leaf \"\(leaf.displayName)\""
        }
        let anchored = issuers.contains { $0.certificate.issuer == anchor.certificate.subject }
        if !anchored {
            return "the intermediate \"\(issuers[0].displayName)\" was not issued by the trust anchor \"\(anchor.parsed.displayName)\""
        }
        return "no path from the leaf through the intermediate to the trust anchor has valid signatures"
    }
}
