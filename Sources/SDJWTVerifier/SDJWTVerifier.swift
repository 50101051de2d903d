import Foundation
import MdocVerifier
import VerificationCore
import WalletJSON
import X509

/// What the verifier of one presentation expects: the credential types asked for, this verifier's
/// client identifier and the request's nonce for the Key Binding JWT, and how old that may be.
public struct SDJWTExpectations: Sendable {
    /// The `vct` values the request asked for; nil: any.
    public var vcts: Set<String>?
    /// The KB-JWT's `aud`: `origin:<origin>` for an unsigned OpenID4VP request, the signed request's `client_id` otherwise.
    public var audience: String?
    /// The KB-JWT's `nonce`: the request's.
    public var nonce: String?
    /// How far back the KB-JWT's `iat` may be (the request's lifetime), seconds.
    public var keyBindingMaxAge: TimeInterval = 600
    /// Whether a credential without holder binding is refused (OpenID4VP asks for it by default).
    public var requireHolderBinding = true
    /// The claims the request asked for; nil: any. With them, a disclosed claim off every path fails
    /// `sdjwt.request.claims`, and an accepted presentation's claims are only these.
    public var requestedClaims: [SDJWTClaimPath]?

    /// Expectations of a request.
    public init(
        vcts: Set<String>? = nil, audience: String? = nil, nonce: String? = nil, keyBindingMaxAge: TimeInterval = 600,
        requireHolderBinding: Bool = true
    ) {
        self.vcts = vcts
        self.audience = audience
        self.nonce = nonce
        self.keyBindingMaxAge = keyBindingMaxAge
        self.requireHolderBinding = requireHolderBinding
    }
}

/// What the checks learn as they run.
struct SDJWTState: Sendable {
    let text: String
    let expectations: SDJWTExpectations
    let trustStore: IACATrustStore
    var presentation: SDJWTPresentation?
    var certificates: [Certificate] = []
    /// The `x5c` entries' DER, as received (the chain cache's key).
    var certificateDER: [[UInt8]] = []
    let chainCache: SDJWTChainCache
    var claims: StrictJSON.Object?
    var disclosedPaths: [[String]] = []
    var anchor: IACATrustStore.Anchor?
    var vct: String? { presentation?.issuerJWT.payload["vct"]?.string }
}

/// The outcome of one SD-JWT VC presentation: the report, and the rebuilt claims when it was accepted.
public struct SDJWTVerificationResult: Sendable {
    /// Every check, its status and reason.
    public let report: VerificationReport
    /// The claims (disclosed ones in place, `_sd` and `_sd_alg` removed); nil unless accepted.
    public let claims: StrictJSON.Object?
    /// The credential's type, when the presentation could be read.
    public let vct: String?

    /// The highest age the returned claims attest (`age_equal_or_over` members that are true), as the
    /// mdoc flows' `ageAtLeast`; nil when none.
    public var ageAtLeast: Int? {
        guard let ages = claims?["age_equal_or_over"]?.object else { return nil }
        return ages.members.compactMap { $0.value == .bool(true) ? Int($0.name) : nil }.max()
    }
}

/// Verifies an SD-JWT VC presentation (IETF SD-JWT, RFC 9901; SD-JWT VC): its structure, the issuer's
/// header and signature with the `x5c` key, the chain to a root trusted for its `vct` (the same trust
/// store, scoping and provenance as mdoc, `vct` in place of the docType) naming its `iss`, the
/// disclosures, the validity, the type asked for, and the holder's Key Binding JWT. Each rule is a
/// check in the report; a failed check never hides the others, and those that depend on it are skipped.
public struct SDJWTVCVerifier: Sendable {
    /// The roots, scoped by `vct`.
    public var trustStore: IACATrustStore
    /// Which checks are required.
    public var policy = VerificationPolicy(name: "production")
    /// Chains validated by this verifier (its trust store cannot change), shared by its copies.
    let chainCache = SDJWTChainCache()

    /// A verifier trusting the roots of `trustStore`.
    public init(trustStore: IACATrustStore) {
        self.trustStore = trustStore
    }

    /// Verifies `text` against `expectations` at `context.time`.
    public func verify(_ text: String, expectations: SDJWTExpectations, context: VerificationContext) async -> SDJWTVerificationResult {
        var state = SDJWTState(text: text, expectations: expectations, trustStore: trustStore, chainCache: chainCache)
        var runner = CheckRunner(policy: policy, context: context)
        await runner.run(SDJWTStructureCheck(), state: &state)
        if state.presentation?.issuerJWT.header["typ"]?.string == "vc+sd-jwt" {
            runner.warn(.legacyType, "The credential's typ is vc+sd-jwt, the type of earlier drafts; SD-JWT VC issuers now use dc+sd-jwt.")
        }
        await runner.run(SDJWTIssuerHeaderCheck(), state: &state)
        await runner.run(SDJWTIssuerSignatureCheck(), state: &state)
        await runner.run(SDJWTIssuerChainCheck(), state: &state)
        await runner.run(SDJWTDisclosuresCheck(), state: &state)
        await runner.run(SDJWTValidityCheck(), state: &state)
        await runner.run(SDJWTVCTCheck(), state: &state)
        await runner.run(SDJWTHolderBindingCheck(), state: &state)
        if let requested = expectations.requestedClaims {
            await runner.run(SDJWTRequestedClaimsCheck(requested: requested), state: &state)
        }
        let report = runner.report(flow: "sdJwtVc")
        var claims = report.verdict == .accepted ? state.claims : nil
        if let requested = expectations.requestedClaims, let all = claims {
            claims = SDJWTClaimPath.select(.object(all), paths: requested.map(\.elements))?.object ?? StrictJSON.Object()
        }
        return SDJWTVerificationResult(report: report, claims: claims, vct: state.vct)
    }
}
