import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

/// Inputs the fuzzer found (TestVectors/fuzz-regressions): each is read and verified to a clean
/// answer, never a crash.
@Suite struct FuzzRegressionTests {
    @Test func aHugeDeclaredNamespaceCountIsAnErrorNotAnAllocation() async throws {
        let bytes = try TestVectors.data("fuzz-regressions/device-response-huge-namespace-count.cbor")
        // Reading it used to reserve capacity for the declared count and abort the process.
        #expect(throws: (any Error).self) { try DeviceResponse(cborBytes: bytes) }
        let transcript = SessionTranscript.appleInApp(
            nonce: Array(repeating: 1, count: 32), merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 2, count: 32))
        let report = await MdocVerifier(trustStore: IACATrustStore()).verify(deviceResponse: bytes, transcript: transcript, context: .at(Date()))
            .report
        #expect(report.verdict == .rejected)
        #expect(report.check(.mdocResponseStructure)?.status == .failed || report.failures.contains { $0.id == .mdocDocumentStructure })
    }

    @Test func declaredCountsNeverExceedWhatTheInputHolds() throws {
        // A map head declaring 2^32 entries followed by two bytes: no count is reported.
        let bytes: [UInt8] = [0xba, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00]
        var seen: Int?? = .none
        _ = CBORDecoder().read(bytes[...]) { reader in
            seen = .some(reader.definiteMapCount())
            return false
        }
        #expect(seen == .some(nil))
        let small: [UInt8] = [0xa1, 0x00, 0x00]
        _ = CBORDecoder().read(small[...]) { reader in
            seen = .some(reader.definiteMapCount())
            return false
        }
        #expect(seen == .some(1))
    }
}
