import Foundation
import VerificationCore
import WalletJSON

/// What the checks of one verification learn and hand on to later checks.
struct ApplePayState: Sendable {
    let input: [UInt8]
    var token: ApplePayToken?
    var signedData: CMSSignedData?
    var signer: CMSSignerInfo?
    var leaf: ParsedCertificate?
    /// Every certificate of the SignedData except the leaf, in received order.
    var otherCertificates: [ParsedCertificate] = []
    /// The certificate among ``otherCertificates`` that issued the leaf (by name; a marked one first).
    var intermediate: ParsedCertificate?
    var signingTime: Date?
    var merchantKey: MerchantKey?
    var plaintext: [UInt8]?
    var payment: ApplePayPaymentData?

    /// The strict JSON parse of `input`, when the caller had it already.
    let parsedInput: StrictJSON.Object?

    init(input: [UInt8], parsedInput: StrictJSON.Object? = nil) {
        self.input = input
        self.parsedInput = parsedInput
    }
}

extension ApplePayPolicy {
    /// `ids` reduced to those this policy requires, so that an advisory or disabled check never
    /// blocks the checks after it.
    func requiredOnly(_ ids: [CheckID]) -> [CheckID] {
        ids.filter(isRequired)
    }
}
