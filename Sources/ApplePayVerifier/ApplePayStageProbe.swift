import Crypto
import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// The stages of one token's verification, each runnable on its own, for
/// `wallet-verifier-bench applepay-stages` (which prints each stage's share of a full verification).
/// Not API: only the benchmark uses it, through `@_spi(Benchmarks)`.
@_spi(Benchmarks)
public struct ApplePayStageProbe: Sendable {
    let verifier: ApplePayTokenVerifier
    let tokenJSON: [UInt8]
    let token: ApplePayToken
    let signedData: CMSSignedData
    let signer: CMSSignerInfo
    let leaf: ParsedCertificate
    let intermediate: ParsedCertificate
    let merchantKey: MerchantKey
    let privateKey: P256.KeyAgreement.PrivateKey
    let ephemeral: P256.KeyAgreement.PublicKey
    let symmetricKey: SymmetricKey
    let plaintext: [UInt8]

    /// Prepares every stage's input from an EC_v1 token that `verifier` accepts at `time`.
    public init(tokenJSON: [UInt8], verifier: ApplePayTokenVerifier, time: Date) async throws {
        self.verifier = verifier
        self.tokenJSON = tokenJSON
        token = try ApplePayToken(json: tokenJSON)
        signedData = try CMSSignedData(berEncoded: token.signature)
        guard let signer = signedData.signers.first else { throw CheckFailure(.malformedCMS, "no signer") }
        self.signer = signer
        let parsed = try signedData.certificates.map { try verifier.chainCache.certificates.certificate(der: $0) }
        guard let leaf = parsed.first(where: { $0.matches(signer.signerIdentifier) }),
            let intermediate = parsed.first(where: { $0 !== leaf && $0.issued(leaf) })
        else { throw CheckFailure(.signerCertificateNotFound, "no leaf or intermediate") }
        self.leaf = leaf
        self.intermediate = intermediate
        guard let key = verifier.keyRing.key(forPublicKeyHash: token.header.publicKeyHash), case .ecP256(let privateKey) = key.privateKey,
            let ephemeralDER = token.header.ephemeralPublicKey, let partyV = key.merchantIdentifierHash
        else { throw CheckFailure(.noMatchingMerchantKey, "an EC_v1 token for a configured EC merchant key is needed") }
        merchantKey = key
        self.privateKey = privateKey
        ephemeral = try P256.KeyAgreement.PublicKey(derRepresentation: ephemeralDER)
        symmetricKey = ApplePayDecryption.deriveSymmetricKey(
            sharedSecret: try privateKey.sharedSecretFromKeyAgreement(with: ephemeral), merchantIdentifierHash: partyV)
        plaintext = try ApplePayDecryption.open(token.data, key: symmetricKey, what: "AES-256-GCM")
        guard case .valid = await verifier.chainCache.validate(leaf: leaf, candidates: [intermediate], anchor: verifier.trustAnchor, at: time) else {
            throw CheckFailure(.untrustedChain, "the chain does not validate")
        }
    }

    /// `applepay.token.structure`'s work: the strict JSON parse and the token model (base64, hex).
    public func decodeToken() throws {
        _ = try ApplePayToken(json: tokenJSON)
    }

    /// The JSON parse of the token alone.
    public func parseTokenJSON() throws {
        _ = try StrictJSON.parse(tokenJSON)
    }

    /// `applepay.signature.cms`'s BER walk of the SignedData (certificates sliced, not parsed).
    public func parseCMS() throws {
        _ = try CMSSignedData(berEncoded: token.signature)
    }

    /// The certificates looked up in the parse cache, the signer matched, the intermediate found.
    public func lookUpCertificates() throws {
        for der in signedData.certificates {
            _ = try verifier.chainCache.certificates.certificate(der: der)
        }
        _ = leaf.matches(signer.signerIdentifier)
        _ = intermediate.issued(leaf)
    }

    /// `applepay.signature.chain` with the validated chain cached (as in a server).
    public func validateChain(at time: Date) async {
        _ = await verifier.chainCache.validate(leaf: leaf, candidates: [intermediate], anchor: verifier.trustAnchor, at: time)
    }

    /// The signed attributes read: content type, message digest (SHA-256 of the signed fields), signing time.
    public func readSignedAttributes() {
        _ = SignedAttributes.single(CMSOID.contentType, name: "content-type", in: signer)
        if case .value(let element) = SignedAttributes.single(CMSOID.messageDigest, name: "message-digest", in: signer) {
            _ = BERScanner.octetString(element)?.elementsEqual(token.signedContentDigest)
        }
        _ = SigningTimeCheck.signingTime(signer)
    }

    /// `applepay.signature.signer`'s ECDSA P-256 verification of the signed attributes (with the DER
    /// signature converted).
    public func verifySignature() -> Bool {
        guard case .p256(let key) = leaf.signingKey, let digest = signer.signedAttributesDigest,
            let raw = SignerCheck.rawECDSASignature(signer.signature),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return key.isValidSignature(signature, for: digest)
    }

    /// ECDH with the ephemeral key (parsed from its DER) and the KDF.
    public func agreeAndDerive() throws {
        guard let ephemeralDER = token.header.ephemeralPublicKey, let partyV = merchantKey.merchantIdentifierHash else { return }
        let ephemeral = try ApplePayDecryption.ephemeralKey(ephemeralDER)
        _ = ApplePayDecryption.deriveSymmetricKey(
            sharedSecret: try privateKey.sharedSecretFromKeyAgreement(with: ephemeral), merchantIdentifierHash: partyV)
    }

    /// AES-256-GCM of `data` with the derived key.
    public func openData() throws {
        _ = try ApplePayDecryption.open(token.data, key: symmetricKey, what: "AES-256-GCM")
    }

    /// `applepay.paymentData`'s JSON parse and shape checks of the decrypted data.
    public func decodePaymentData() throws {
        let payment = try ApplePayPaymentData(json: plaintext)
        _ = PaymentDataCheck.shapeViolation(payment, version: token.version)
    }

    /// `replay.transactionId` against `store`: the key's hex and one first use recorded.
    public func recordReplay(store: any ReplayStore, now: Date) async throws {
        _ = try await store.recordFirstUse(
            namespace: verifier.policy.replayNamespace, key: Hex.encode(token.header.transactionIdBytes),
            expiresAt: now.addingTimeInterval(3600), now: now, idempotency: nil)
    }
}
