import Crypto
import SwiftASN1
import WalletCOSE
import X509

package extension COSEPublicKey {
    /// The certificate's key as a COSE verification key: ECDSA on P-256, P-384 or P-521; nil for any
    /// other key (issuer, list signer, VICAL signer and reader keys are all ECDSA here).
    init?(certificate: Certificate) {
        if let key = P256.Signing.PublicKey(certificate.publicKey) {
            self = .p256(key)
        } else if let key = P384.Signing.PublicKey(certificate.publicKey) {
            self = .p384(key)
        } else if let key = P521.Signing.PublicKey(certificate.publicKey) {
            self = .p521(key)
        } else {
            return nil
        }
    }
}

/// Lets chain building pass a critical extended key usage: ISO/IEC 18013-5 document signers, reader
/// certificates, revocation-list signers and VICAL signers mark theirs critical. Which usages are
/// acceptable is not decided here: each certificate profile is its own check with its own result.
package struct CriticalExtendedKeyUsagePolicy: VerifierPolicy {
    package let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.extendedKeyUsage]

    package init() {}

    package func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        .meetsPolicy
    }
}
