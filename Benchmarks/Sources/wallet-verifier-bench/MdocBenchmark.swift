import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletVerifierTestSupport

/// One mDL response (issuer signature + chain + ~15 digests + device signature) against the cost of
/// its two ECDSA P-256 verifications alone. One core: everything runs sequentially on one task.
enum MdocBenchmark {
    static func mdlElements() -> [MdocFixture.Element] {
        let ns = MdocFixture.isoNameSpace
        return MdocFixture.defaultElements + [
            .init(ns, "issue_date", .tagged(1004, .text("2023-01-01"))), .init(ns, "expiry_date", .tagged(1004, .text("2033-01-01"))),
            .init(ns, "issuing_country", .text("US")), .init(ns, "issuing_authority", .text("Test DMV")),
            .init(ns, "resident_address", .text("1 Main St")), .init(ns, "resident_city", .text("Springfield")),
            .init(ns, "resident_state", .text("IL")), .init(ns, "sex", .int(2)),
        ]
    }

    /// The response every mdoc benchmark uses.
    struct Scenario {
        let pki: MdocPKI
        let deviceKey: P256.Signing.PrivateKey
        let fixture: MdocFixture
        let bytes: [UInt8]
    }

    static func scenario(transcript: SessionTranscript) throws -> Scenario {
        let pki = try MdocPKI()
        let deviceKey = P256.Signing.PrivateKey()
        var fixture = MdocFixture()
        fixture.elements = mdlElements()
        let bytes = try fixture.deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
        return Scenario(pki: pki, deviceKey: deviceKey, fixture: fixture, bytes: bytes)
    }

    static let transcript = SessionTranscript.appleInApp(
        nonce: Array(repeating: 1, count: 32), merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 2, count: 32))

    /// Only the full verification, for `seconds` of CPU time (`wallet-verifier-bench mdoc-profile`): a
    /// loop to run under `perf record`, with nothing else in the profile.
    static func profile(seconds: Double) async throws {
        let scenario = try scenario(transcript: transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [scenario.pki.iaca]), policy: .iso18013Strict)
        let time = scenario.fixture.validFrom.addingTimeInterval(3600)
        let start = processCPUSeconds()
        var count = 0
        while processCPUSeconds() - start < seconds {
            for _ in 0..<10 { _ = await verifier.verify(deviceResponse: scenario.bytes, transcript: transcript, context: .at(time)) }
            count += 10
        }
        print("mdoc-profile: \(count) verifications, \(String(format: "%.1f", (processCPUSeconds() - start) * 1e6 / Double(count))) µs CPU each")
    }

    static func run(seconds: Double) async throws {
        print("mdoc: one mDL DeviceResponse, 15 issuer-signed elements, deviceSignature (P-256), chain cached")
        let transcript = Self.transcript
        let scenario = try scenario(transcript: transcript)
        let (pki, deviceKey, fixture, bytes) = (scenario.pki, scenario.deviceKey, scenario.fixture, scenario.bytes)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: .iso18013Strict)
        let time = fixture.validFrom.addingTimeInterval(3600)
        let first = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(time))
        guard first.report.verdict == .accepted else {
            print("  setup failed: \(first.report.failures.map(\.message))")
            return
        }

        // The floor: the same two signature verifications, nothing else.
        guard
            let signatures = try SignatureFloor(
                response: bytes, transcript: transcript, issuerKey: pki.dsKey.publicKey, deviceKey: deviceKey.publicKey)
        else { return }
        await measurePair(
            full: "full verification (decode, 13 checks, elements)", floor: "crypto floor: 2 × ECDSA P-256 verify",
            seconds: seconds * 2, target: 0.85
        ) {
            _ = await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(time))
        } floor: {
            signatures.verify()
        }
    }
}
