import Crypto
import Foundation

/// What the checks of one verification learn and hand on to later checks.
struct GooglePayState: Sendable {
    let input: [UInt8]
    var token: GooglePayToken?
    /// The intermediate signing key from `signedKey` (trusted only once its checks passed).
    var intermediateKey: P256.Signing.PublicKey?
    var intermediateKeyExpiration: Date?
    /// The merchant key whose tag verified.
    var merchantKey: GooglePayMerchantKey?
    var plaintext: [UInt8]?
    var payment: GooglePayPaymentData?

    init(input: [UInt8]) {
        self.input = input
    }
}
