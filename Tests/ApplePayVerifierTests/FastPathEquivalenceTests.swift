import Crypto
import Foundation
import Testing
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport

@testable import ApplePayVerifier

/// The verifier's shortcuts (prerequisites known to have passed, report text written once per
/// certificate or key, the ephemeral key's fixed DER prefix, the transactionId's hex) give exactly
/// the report the plain way gives: the same checks, statuses, reasons, messages and details.
@Suite struct FastPathEquivalenceTests {
    /// The checks run the plain way: every check handed to the runner with its whole prerequisite
    /// list, every message composed on the spot.
    static func plainReport(
        _ verifier: ApplePayTokenVerifier, _ json: [UInt8], time: Date, expectations: ApplePayExpectations = .none
    ) async -> VerificationReport {
        let policy = verifier.policy
        let anchor = verifier.trustAnchor
        var runner = CheckRunner(policy: policy.requirements, context: VerificationContext(time: time))
        var state = ApplePayState(input: json)
        if !anchor.isAppleRootCAG3 {
            runner.warn(.customTrustAnchor, "chains are validated against \(anchor), not Apple Root CA - G3; only for tests")
        }
        await runner.run(TokenStructureCheck(), state: &state)
        await runner.run(SignatureCMSCheck(certificates: CertificateParseCache()), state: &state)
        await runner.run(MarkerOIDsCheck(), state: &state)
        await runner.run(CertificateValidityCheck(anchor: anchor), state: &state)
        await runner.run(ChainCheck(anchor: anchor, cache: ApplePayChainCache(), policy: policy), state: &state)
        await runner.run(ContentTypeCheck(), state: &state)
        await runner.run(MessageDigestCheck(), state: &state)
        await runner.run(SignerCheck(), state: &state)
        await runner.run(SigningTimeCheck(policy: policy), state: &state)
        await runner.run(KeySelectionCheck(keyRing: verifier.keyRing), state: &state)
        await runner.run(DecryptionCheck(policy: policy), state: &state)
        await runner.run(PaymentDataCheck(), state: &state)
        await runner.run(ExpectedCurrencyCheck(expected: expectations.currencyCode), state: &state)
        await runner.run(ExpectedAmountCheck(expected: expectations.transactionAmount), state: &state)
        await runner.run(ExpectedApplicationDataCheck(expectations: expectations, policy: policy), state: &state)
        await runner.run(
            ReplayCheck(
                store: InMemoryReplayStore(), policy: policy, prerequisites: ReplayCheck.prerequisites(policy: policy, expectations: expectations)),
            state: &state)
        let missing = expectations.missing(tokenHasApplicationData: state.token?.header.applicationData != nil)
        if !missing.isEmpty {
            runner.warn(
                .expectationsMissing,
                "No expected \(missing.joined(separator: ", ")) was given: the token was not checked against the payment it is for "
                    + "(Apple's step 6: check that the currencyCode is as expected, that the transactionAmount is correct and that "
                    + "the applicationData matches the hash of the payment request's data)")
        }
        return runner.report(flow: "applePay")
    }

    static func expectSameReport(
        _ json: [UInt8], verifier: ApplePayTokenVerifier, time: Date = Fixture.verificationTime, expectations: ApplePayExpectations = .none,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let fast = await verifier.verify(json, context: VerificationContext(time: time), expectations: expectations).report
        let plain = await plainReport(verifier, json, time: time, expectations: expectations)
        #expect(fast.checks == plain.checks, sourceLocation: sourceLocation)
        #expect(fast.warnings == plain.warnings, sourceLocation: sourceLocation)
        #expect(fast.verdict == plain.verdict, sourceLocation: sourceLocation)
    }

    /// An accepted token and one for each way the checks can fail (`variant` 0 to 9).
    static func apply(_ variant: Int, to builder: inout ApplePayTokenBuilder) {
        switch variant {
        case 1: builder.cms = { $0.corruptSignature = true }
        case 2: builder.cms = { $0.messageDigestOverride = [UInt8](repeating: 0xAB, count: 32) }
        case 3: builder.cms = { $0.includeContentType = false }
        case 4: builder.cms = { $0.wrongSignerSerial = true }
        case 5: builder.cms = { $0.includeIntermediate = false }
        case 6: builder.publicKeyHashOverride = Base64.encode([UInt8](repeating: 7, count: 32))
        case 7: builder.kdfMerchantIdentifier = "merchant.com.example.other"
        case 8: builder.plaintext = Array("not json".utf8)
        case 9: builder.applicationData = [UInt8](repeating: 0x11, count: 32)
        default: break
        }
    }

    @Test(arguments: 0..<10)
    func sameReportAsThePlainWay(variant: Int) async throws {
        for merchant in [Fixture.ecMerchant, Fixture.rsaMerchant] {
            var builder = Fixture.builder(merchant)
            Self.apply(variant, to: &builder)
            let json = try builder.build().json()
            await Self.expectSameReport(json, verifier: try Fixture.verifier())
            // Too late for the signing time, and for the leaf.
            await Self.expectSameReport(json, verifier: try Fixture.verifier(), time: Fixture.verificationTime.addingTimeInterval(400 * 86_400))
            // With expectations (checks built per call, the replay check's longer list).
            await Self.expectSameReport(
                json, verifier: try Fixture.verifier(),
                expectations: ApplePayExpectations(currencyCode: "840", transactionAmount: 1000, applicationData: nil))
            // A policy that makes a prerequisite advisory or disables one.
            await Self.expectSameReport(
                json, verifier: try Fixture.verifier(policy: Self.policy(.applePaySigningTime, .advisory)))
            await Self.expectSameReport(
                json, verifier: try Fixture.verifier(policy: Self.policy(.applePaySignatureMarkerOIDs, .disabled)))
        }
        await Self.expectSameReport(Array("{}".utf8), verifier: try Fixture.verifier())
    }

    static func policy(_ id: CheckID, _ requirement: Requirement) -> ApplePayPolicy {
        ApplePayPolicy(requirements: VerificationPolicy(name: "applepay/test", overrides: [id: requirement]))
    }

    @Test func ephemeralKeyShortcutAgreesWithTheDERParse() throws {
        let key = P256.KeyAgreement.PrivateKey().publicKey
        let der = Array(key.derRepresentation)
        #expect(der.starts(with: ApplePayDecryption.p256SPKIPrefix))
        #expect(try ApplePayDecryption.ephemeralKey(der).rawRepresentation == key.rawRepresentation)
        // A point off the curve fails either way.
        var offCurve = der
        offCurve[offCurve.count - 1] ^= 0x01
        #expect(throws: (any Error).self) { try ApplePayDecryption.ephemeralKey(offCurve) }
        #expect(throws: (any Error).self) { try P256.KeyAgreement.PublicKey(derRepresentation: offCurve) }
        // Anything but the usual DER goes through the parse: a compressed point, a truncated key.
        let compressed =
            ApplePayDecryption.p256SPKIPrefix.prefix(1) + [0x39] + ApplePayDecryption.p256SPKIPrefix.dropFirst(2).dropLast(2) + [0x22, 0x00]
            + Array(key.compressedRepresentation)
        #expect(
            (try? ApplePayDecryption.ephemeralKey(Array(compressed)))?.rawRepresentation
                == (try? P256.KeyAgreement.PublicKey(derRepresentation: Array(compressed)))?.rawRepresentation)
        #expect(throws: (any Error).self) { try ApplePayDecryption.ephemeralKey(Array(der.dropLast())) }
    }

    @Test(arguments: ["0", "7", "10", "1000", "1999", "123456789012345678"])
    func wholeAmountTextIsWhatDecimalWrites(text: String) throws {
        #expect(ApplePayPaymentData.isWholeNumberText(text))
        let value = try #require(ApplePayPaymentData.decimal(text))
        #expect("\(value)" == text)
    }

    @Test(arguments: ["01", "1.0", "19.99", "-5", "1e3", "1234567890123456789", ""])
    func otherAmountTextsAreWrittenByDecimal(text: String) {
        #expect(!ApplePayPaymentData.isWholeNumberText(text))
    }
}
