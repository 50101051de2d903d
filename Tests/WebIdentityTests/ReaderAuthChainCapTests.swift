import Crypto
import Foundation
import Mdoc
import Testing
import VerificationCore
import WalletVerifierTestSupport
import WebIdentity

/// A reader's x5chain is read up to four certificates (a reader certificate and its intermediates).
@Suite struct ReaderAuthChainCapTests {
    @Test func aLongReaderChainFailsTheChainCheck() async throws {
        let pki = try ReaderPKI()
        let request = WebDocumentRequest(
            docType: "org.iso.18013.5.1.mDL", elements: [.init(nameSpace: "org.iso.18013.5.1", identifier: "age_over_21")])
        let root = ReaderPKI.der(pki.root)
        func verify(extra: Int) async throws -> VerificationReport {
            let signer = try ReaderAuthSigner(key: pki.readerKey, chain: pki.chainDER + Array(repeating: root, count: extra))
            let presentation = try WebPresentationRequest(
                request: request, origin: "https://shop.example", nonce: Array(repeating: 4, count: 32),
                recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey, readerAuth: signer)
            return await ReaderAuthVerifier(roots: [pki.root]).verify(
                deviceRequest: presentation.deviceRequest, transcript: presentation.sessionTranscript,
                context: .at(Date(timeIntervalSince1970: 1_700_000_000)))
        }
        let long = try await verify(extra: 4)
        #expect(long.failures.contains { $0.reason == "chainTooLong" }, "\(long.checks.map { "\($0.id)/\($0.reason)" })")
        #expect(long.check(.readerAuthChain)?.status != .passed)
        #expect(long.verdict != .accepted)
        let four = try await verify(extra: 3)
        #expect(four.check(.readerAuthChain)?.status == .passed, "\(four.failures.map(\.message))")
    }
}
