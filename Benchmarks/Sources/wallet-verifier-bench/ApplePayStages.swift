@_spi(Benchmarks) import ApplePayVerifier
import Foundation
import VerificationCore
import WalletJSON
import WalletVerifierTestSupport

/// Costs of the stages of one EC_v1 verification, each as a share of a whole verification
/// (`wallet-verifier-bench applepay-stages`), to see what is left outside the cryptography.
/// `APPLEPAY_STAGE=a,b` measures only the stages whose label contains `a` or `b` (for profiling).
enum ApplePayStages {
    static func run(seconds: Double) async throws {
        print(
            "applepay stages: EC_v1 token (same as the applepay benchmark), every check, in-memory replay store; APPLEPAY_STAGE=a,b measures only the labels containing a or b"
        )
        let pki = ApplePayFixturePKI.standard
        let anchor = try pki.trustAnchor()
        let ec = try ApplePayFixtureMerchant.ec()
        let ring = try MerchantKeyRing([ec.merchantKey()])
        let cache = ApplePayChainCache()
        let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
        let time = signingTime.addingTimeInterval(30)
        let context = VerificationContext(time: time)
        let tokens = try (0..<512).map { _ in try ApplePayTokenBuilder(pki: pki, merchant: ec, signingTime: signingTime).build().json() }
        var cycle = try FirstUseTokens(tokens) {
            try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), trustAnchor: anchor, chainCache: cache)
        }
        let verifier = try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), trustAnchor: anchor, chainCache: cache)
        let probe = try await ApplePayStageProbe(tokenJSON: tokens[0], verifier: verifier, time: time)
        let first = try await cycle.verifyNext(context: context)
        guard first.verdict == .accepted else {
            print("  setup failed: \(first.report.failures.map(\.message))")
            return
        }

        var table = StageTable(filter: "APPLEPAY_STAGE", seconds: seconds)
        try await table.full("full verification (every check, replay store)") {
            let result = try await cycle.verifyNext(context: context)
            if result.verdict != .accepted { fatalError("benchmark token rejected: \(result.report.failures.map(\.message))") }
        }
        // Tokens each bring their own signature and ephemeral key (the benchmark's floor cycles
        // through them too): the variable-time parts of ECDSA and ECDH differ every time.
        var others: [ApplePayStageProbe] = []
        for token in tokens.prefix(64) { others.append(try await ApplePayStageProbe(tokenJSON: token, verifier: verifier, time: time)) }
        var next = 0
        func nextProbe() -> ApplePayStageProbe {
            defer { next = (next + 1) % others.count }
            return others[next]
        }
        try await table.floor("crypto floor: verify + ECDH + KDF + AES-GCM, 64 tokens in turn") {
            let probe = nextProbe()
            precondition(probe.verifySignature())
            try probe.agreeAndDerive()
            try probe.openData()
        }
        try await table.stage("token JSON decode (strict JSON + fields, base64, hex)", part: true) { try probe.decodeToken() }
        try await table.stage("  of which the strict JSON parse") { try probe.parseTokenJSON() }
        try await table.stage("CMS parse (BER walk, signer info)", part: true) { try probe.parseCMS() }
        try await table.stage("signer certificates (parse cache) + issuer match", part: true) { try probe.lookUpCertificates() }
        await table.stage("chain (validated-chain cache)", part: true) { await probe.validateChain(at: time) }
        await table.stage("signed attributes (content type, digest, signing time)", part: true) { probe.readSignedAttributes() }
        await table.stage("signature verify (ECDSA P-256, DER → raw), 64 tokens in turn", part: true) {
            precondition(nextProbe().verifySignature())
        }
        await table.stage("  the same, one token's signature again and again") { precondition(probe.verifySignature()) }
        try await table.stage("ECDH + KDF (ephemeral key parsed), 64 tokens in turn", part: true) { try nextProbe().agreeAndDerive() }
        try await table.stage("AES-256-GCM open", part: true) { try probe.openData() }
        try await table.stage("payment data JSON decode + shape", part: true) { try probe.decodePaymentData() }
        var store = InMemoryReplayStore()
        var recorded = 0
        try await table.stage("replay store: first use recorded", part: true) {
            // A fresh store every 512 entries, as the full benchmark does.
            if recorded == 512 {
                store = InMemoryReplayStore()
                recorded = 0
            }
            recorded += 1
            try await probe.recordReplay(store: store, now: time.addingTimeInterval(Double(recorded)))
        }
        let result = await verifier.verify(tokens[1], context: context)
        await table.stage("report JSON (not part of a verification)") { _ = result.json }
        table.summary()
        print("  (unaccounted: the check runner, the 16 checks' messages and details, the summary)")
    }
}
