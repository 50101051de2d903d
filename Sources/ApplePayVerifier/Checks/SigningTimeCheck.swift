import Foundation
import SwiftASN1
import VerificationCore

/// `applepay.signingTime`: the CMS signing time lies in [time − skew, time] widened by the policy's
/// maximum age: a token is accepted from `signingTime − skew` until `signingTime + maximumSigningAge`.
/// Distinct from certificate expiry (`applepay.signature.certificateValidity`).
struct SigningTimeCheck: VerificationCheck {
    let id = CheckID.applePaySigningTime
    let prerequisites: [CheckID] = [.applePaySignatureCMS]
    let policy: ApplePayPolicy
    /// The policy's window in seconds, as the messages write it (written once).
    let windowText: String

    init(policy: ApplePayPolicy) {
        self.policy = policy
        self.windowText = Self.format(policy.maximumSigningAge.seconds)
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let signer = state.signer else { return .notEvaluated(because: .applePaySignatureCMS) }
        let signingTime: Date
        switch Self.signingTime(signer) {
        case .failure(let outcome): return outcome.outcome
        case .success(let date): signingTime = date
        }
        state.signingTime = signingTime

        let time = context.time
        let window = policy.maximumSigningAge.seconds
        let skew = max(policy.allowedFutureSkew.seconds, context.clockSkewSeconds)
        let age = time.timeIntervalSince(signingTime)
        if age >= -skew, age <= window {
            // The times are written only when the report is read.
            let windowText = windowText
            return .passed {
                let (signed, ageText) = (signingTime.rfc3339, Self.format(age))
                return (
                    "Signed at \(signed), \(ageText) s before the verification time (window \(windowText) s)",
                    ["signingTime": signed, "ageSeconds": ageText]
                )
            }
        }
        let details = [
            "signingTime": signingTime.rfc3339,
            "verificationTime": time.rfc3339,
            "ageSeconds": Self.format(age),
            "maximumAgeSeconds": Self.format(window),
            "allowedFutureSkewSeconds": Self.format(skew),
        ]
        if age < -skew {
            return .failed(
                .signingTimeInFuture,
                "The token's signing time \(signingTime.rfc3339) is \(Self.format(-age)) s\(Self.humanized(age)) after the verification time \(time.rfc3339); at most \(Self.format(skew)) s of clock skew is allowed",
                details: details)
        }
        if age > window {
            return .failed(
                .signingTimeTooOld,
                "The token was signed at \(signingTime.rfc3339), \(Self.format(age)) s\(Self.humanized(age)) before the verification time \(time.rfc3339); tokens are accepted for \(Self.format(window)) s after signing (possible replay)",
                details: details)
        }
        return .passed(
            "Signed at \(signingTime.rfc3339), \(Self.format(age)) s before the verification time (window \(Self.format(window)) s)", details: details
        )
    }

    struct Problem: Error { var outcome: CheckOutcome }

    static func signingTime(_ signer: CMSSignerInfo) -> Result<Date, Problem> {
        switch SignedAttributes.single(CMSOID.signingTime, name: "signing-time", in: signer) {
        case .problem(let outcome):
            return .failure(Problem(outcome: outcome))
        case .value(let element):
            // The form every token has, read in place; anything else through swift-asn1.
            if let date = CMSTime.date(utcTimeElement: element) { return .success(date) }
            guard let node = try? BER.parse(element), let date = try? CMSTime.date(from: node) else {
                return .failure(
                    Problem(outcome: .failed(.malformedAttribute, "The signing-time attribute is not a valid UTCTime or GeneralizedTime")))
            }
            return .success(date)
        }
    }

    static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        if seconds == seconds.rounded() { return String(Int64(seconds)) }
        guard abs(seconds) < 60 else { return String(Int64(seconds.rounded())) }
        // Three decimals, written out (no Foundation formatter on the per-request path).
        let millis = Int64((abs(seconds) * 1000).rounded())
        let fraction = String(millis % 1000)
        return (seconds < 0 ? "-" : "") + String(millis / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// "380844402 s" reads better with "(about 4407 days)".
    static func humanized(_ seconds: Double) -> String {
        let magnitude = abs(seconds)
        if magnitude >= 2 * 86_400 { return " (about \(Int64(magnitude / 86_400)) days)" }
        if magnitude >= 2 * 3600 { return " (about \(Int64(magnitude / 3600)) hours)" }
        return ""
    }
}
