import VerificationCore

/// `applepay.signature.chain`: leaf → intermediate → trust anchor, validated with swift-certificates'
/// `Verifier` (RFC 5280 at the verification time, marker OIDs on the path), with validated chains
/// cached. Only the leaf and the one intermediate that issued it are used.
struct ChainCheck: VerificationCheck {
    let id = CheckID.applePaySignatureChain
    let prerequisites: [CheckID]
    let anchor: ApplePayTrustAnchor
    let cache: ApplePayChainCache
    /// The details of every outcome: the anchor's name and fingerprint (written once).
    let anchorDetails: [String: String]

    init(anchor: ApplePayTrustAnchor, cache: ApplePayChainCache, policy: ApplePayPolicy) {
        self.anchor = anchor
        self.cache = cache
        self.anchorDetails = ["root": anchor.parsed.displayName, "rootFingerprint": anchor.fingerprint]
        self.prerequisites = [.applePaySignatureCMS] + policy.requiredOnly([.applePaySignatureMarkerOIDs, .applePaySignatureCertificateValidity])
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.leaf else { return .notEvaluated(because: .applePaySignatureCMS) }
        // Exactly the leaf and the intermediate that issued it (the marked one when several name the
        // leaf's issuer) go to path building: attacker-supplied certificates that could all sign each
        // other never make the search grow.
        guard let intermediate = state.intermediate else {
            return .failed(
                .untrustedChain, "No certificate in the SignedData issued the leaf \"\(leaf.displayName)\"",
                details: [
                    "root": anchor.parsed.displayName,
                    "rootFingerprint": anchor.fingerprint,
                ])
        }
        switch await cache.validate(leaf: leaf, candidates: [intermediate], anchor: anchor, at: context.time) {
        case .valid(let validated, _):
            return .passed(validated.validMessage, details: anchorDetails)
        case .invalid(let reason):
            return .failed(
                .untrustedChain,
                "No valid chain from the leaf \"\(leaf.displayName)\" to the trust anchor \"\(anchor.parsed.displayName)\": \(reason)",
                details: [
                    "root": anchor.parsed.displayName,
                    "rootFingerprint": anchor.fingerprint,
                ])
        }
    }
}
