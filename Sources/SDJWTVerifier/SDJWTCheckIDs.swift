import VerificationCore

extension CheckID {
    /// The presentation reads: the issuer-signed JWT, each disclosure, the optional KB-JWT, within the limits.
    public static let sdjwtStructure: CheckID = "sdjwt.structure"
    /// The issuer-signed JWT's header: `typ` `dc+sd-jwt` (`vc+sd-jwt` with a warning), `alg` ES256, ES384 or ES512.
    public static let sdjwtIssuerHeader: CheckID = "sdjwt.issuer.header"
    /// The issuer's signature verifies with the key of the `x5c` leaf.
    public static let sdjwtIssuerSignature: CheckID = "sdjwt.issuer.signature"
    /// The `x5c` chain reaches a root trusted for the credential's `vct`, and the leaf names the `iss`.
    public static let sdjwtIssuerChain: CheckID = "sdjwt.issuer.chain"
    /// Every disclosure is referenced exactly once by a digest, and the claims rebuild.
    public static let sdjwtDisclosures: CheckID = "sdjwt.disclosures"
    /// `iat`, `nbf` and `exp` at the verification time, with the clock skew.
    public static let sdjwtValidity: CheckID = "sdjwt.validity"
    /// `vct` is present and one of the types asked for.
    public static let sdjwtVCT: CheckID = "sdjwt.vct"
    /// The Key Binding JWT: signed by the `cnf.jwk` key, for this audience and nonce, recent, over this presentation.
    public static let sdjwtHolderBinding: CheckID = "sdjwt.holder.binding"
    /// (With a request's claims) every disclosed claim lies on a claim path the request asked for.
    public static let sdjwtRequestClaims: CheckID = "sdjwt.request.claims"
}

extension ReasonCode {
    /// The presentation is not `<JWT>~<disclosures>~[<KB-JWT>]` of strict base64url and JSON.
    public static let malformedSDJWT: ReasonCode = "malformedSDJWT"
    /// A disclosure is not a base64url JSON array of two or three members with a string salt.
    public static let malformedDisclosure: ReasonCode = "malformedDisclosure"
    /// Past a documented limit (size, disclosures, digests, depth).
    public static let tooLarge: ReasonCode = "tooLarge"
    /// A disclosure of `_sd` or `...`.
    public static let reservedClaimName: ReasonCode = "reservedClaimName"
    /// A digest that appears twice, or a disclosure given twice.
    public static let duplicateDigest: ReasonCode = "duplicateDigest"
    /// A disclosure no digest references.
    public static let unreferencedDisclosure: ReasonCode = "unreferencedDisclosure"
    /// A disclosure of a claim already present in its object.
    public static let duplicateClaim: ReasonCode = "duplicateClaim"
    /// `_sd_alg` other than sha-256, sha-384, sha-512.
    public static let unsupportedHashAlgorithm: ReasonCode = "unsupportedHashAlgorithm"
    /// An `alg` other than ES256, ES384, ES512 (`none` and MAC algorithms among them).
    public static let algorithmNotAllowed: ReasonCode = "algorithmNotAllowed"
    /// A `typ` other than `dc+sd-jwt` (or `vc+sd-jwt`); for the KB-JWT, other than `kb+jwt`.
    public static let unexpectedType: ReasonCode = "unexpectedType"
    /// `vc+sd-jwt`, the type of earlier drafts: accepted, with a warning.
    public static let legacyType: ReasonCode = "legacyType"
    /// The leaf certificate names neither the `iss` URI nor its host.
    public static let issuerNameMismatch: ReasonCode = "issuerNameMismatch"
    /// `iat` after the verification time (beyond the skew).
    public static let issuedInFuture: ReasonCode = "issuedInFuture"
    /// No `vct`, or not a string.
    public static let vctMissing: ReasonCode = "vctMissing"
    /// A `vct` the request did not ask for.
    public static let vctNotRequested: ReasonCode = "vctNotRequested"
    /// The credential has `cnf` (or holder binding is required) and no KB-JWT follows.
    public static let keyBindingMissing: ReasonCode = "keyBindingMissing"
    /// The KB-JWT or the `cnf.jwk` cannot be read or lacks a member.
    public static let keyBindingMalformed: ReasonCode = "keyBindingMalformed"
    /// The KB-JWT's `aud` is not this verifier's client identifier.
    public static let audienceMismatch: ReasonCode = "audienceMismatch"
    /// The KB-JWT's `nonce` is not this request's.
    public static let nonceMismatch: ReasonCode = "nonceMismatch"
    /// The KB-JWT's `sd_hash` is not the hash of the presentation as received.
    public static let sdHashMismatch: ReasonCode = "sdHashMismatch"
    /// A disclosed claim the request did not ask for.
    public static let unrequestedClaim: ReasonCode = "unrequestedClaim"
    /// The KB-JWT's `iat` is outside the request's lifetime.
    public static let keyBindingStale: ReasonCode = "keyBindingStale"
}
