import VerificationCore

/// `applepay.signature.chain`: leaf → intermediate → trust anchor, validated with swift-certificates'
/// `Verifier` (RFC 5280 at the verification time, marker OIDs on the path), with validated chains
/// cached.
struct ChainCheck: VerificationCheck {
    let id = CheckID.applePaySignatureChain
    let prerequisites: [CheckID]
    let anchor: ApplePayTrustAnchor
    let cache: ApplePayChainCache

    init(anchor: ApplePayTrustAnchor, cache: ApplePayChainCache, policy: ApplePayPolicy) {
        self.anchor = anchor
        self.cache = cache
        self.prerequisites = [.applePaySignatureCMS] + policy.requiredOnly([.applePaySignatureMarkerOIDs, .applePaySignatureCertificateValidity])
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.leaf else { throw MissingPrerequisite("the signer certificate") }
        switch await cache.validate(leaf: leaf, candidates: state.otherCertificates, anchor: anchor, at: context.time) {
        case .valid(let path, _):
            return .passed("chain \(path) is valid", details: [
                "root": anchor.parsed.displayName,
                "rootFingerprint": anchor.fingerprint,
            ])
        case .invalid(let reason):
            return .failed(.untrustedChain, "no valid chain from the leaf \"\(leaf.displayName)\" to the trust anchor \"\(anchor.parsed.displayName)\": \(reason)", details: [
                "root": anchor.parsed.displayName,
                "rootFingerprint": anchor.fingerprint,
            ])
        }
    }
}
