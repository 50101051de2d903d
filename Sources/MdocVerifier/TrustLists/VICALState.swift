import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
import X509

/// What the `vical.*` checks read and leave for each other: the VICAL bytes and the loader's settings,
/// then the decoded VICAL and its signer chain.
struct VICALState {
    /// The VICAL as received.
    let bytes: [UInt8]
    /// The configured VICAL anchors.
    let anchors: [Certificate]
    /// Whether a VICAL past its nextUpdate is a warning rather than a failure.
    let allowOutdated: Bool
    /// Tolerance on the VICAL's date and nextUpdate.
    let clockSkew: Duration
    /// Set by `vical.structure`.
    var vical: VICAL?
    /// The x5chain's certificates, signer first (``readChain()``).
    var certificates: [Certificate] = []
    /// Why the x5chain cannot be used, when it cannot; both `vical.signature` and `vical.chain` fail with it.
    var chainProblem: (reason: ReasonCode, message: String)?
    /// Set by `vical.validity` when an outdated VICAL is allowed: the warning's message.
    var outdated: String?

    init(bytes: [UInt8], anchors: [Certificate], allowOutdated: Bool, clockSkew: Duration) {
        self.bytes = bytes
        self.anchors = anchors
        self.allowOutdated = allowOutdated
        self.clockSkew = clockSkew
    }

    /// Reads the x5chain of a decoded VICAL into ``certificates``, or records ``chainProblem``.
    mutating func readChain() {
        guard let vical else { return }
        do {
            var chainDERs = try vical.sign1.headers.x5chain()
            // A signer, an issuing CA and a root (AAMVA's VICAL): more is not read.
            if chainDERs.count > VICALSignerProfile.maxChainLength {
                chainProblem = (
                    .chainTooLong, "The VICAL's x5chain holds \(chainDERs.count) certificates; at most \(VICALSignerProfile.maxChainLength) are read."
                )
                chainDERs = []
            }
            for (position, der) in chainDERs.enumerated() {
                do { certificates.append(try Certificate(derEncoded: der)) } catch {
                    chainProblem = (.invalidCertificate, "Certificate \(position) of the VICAL's x5chain does not parse.")
                    break
                }
            }
        } catch {
            chainProblem = (ReasonCode(error.code.rawValue), "The VICAL has no usable x5chain: \(error.message).")
        }
    }
}
