@_spi(Benchmarks) import ApplePayVerifier
import Foundation
import VerificationCore
import WalletJSON
import WalletVerifierTestSupport

/// Costs of the stages of one EC_v1 verification, each as a share of a whole verification
/// (`wallet-verifier-bench applepay-stages`), to see what is left outside the cryptography.
enum ApplePayStages {
    /// `APPLEPAY_STAGE=text` measures only the stages whose label contains `text` (for profiling one stage).
    static let only = ProcessInfo.processInfo.environment["APPLEPAY_STAGE"]

    static func run(seconds: Double) async throws {
        print("applepay stages: EC_v1 token (same as the applepay benchmark), every check, in-memory replay store")
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

        let full = try await wallet_verifier_bench.measure("full verification (every check, replay store)", seconds: seconds) {
            let result = try await cycle.verifyNext(context: context)
            if result.verdict != .accepted { fatalError("benchmark token rejected: \(result.report.failures.map(\.message))") }
        }
        let fullMicros = 1e6 / full
        var stageMicros = 0.0
        func stage(_ label: String, counted: Bool = true, _ body: () async throws -> Void) async rethrows {
            if let only, !label.contains(only) { return }
            let rate = try await wallet_verifier_bench.measure(label, seconds: seconds, body)
            let micros = 1e6 / rate
            if counted { stageMicros += micros }
            print("      \(String(format: "%5.1f", 100 * micros / fullMicros)) % of a full verification\(counted ? "" : " (part of the line above)")")
        }
        try await stage("token JSON decode (strict JSON + fields, base64, hex)") { try probe.decodeToken() }
        try await stage("  of which the strict JSON parse", counted: false) { try probe.parseTokenJSON() }
        try await stage("CMS parse (BER walk, signer info)") { try probe.parseCMS() }
        try await stage("signer certificates (parse cache) + issuer match") { try probe.lookUpCertificates() }
        await stage("chain (validated-chain cache)") { await probe.validateChain(at: time) }
        await stage("signed attributes (content type, digest, signing time)") { probe.readSignedAttributes() }
        await stage("signature verify (ECDSA P-256, DER → raw)") { precondition(probe.verifySignature()) }
        // The crypto floor verifies one signature over and over; tokens each bring their own, and
        // the variable-time part of ECDSA verification (w-NAF digits) then differs every time.
        var others: [ApplePayStageProbe] = []
        for token in tokens.prefix(64) { others.append(try await ApplePayStageProbe(tokenJSON: token, verifier: verifier, time: time)) }
        var next = 0
        await stage("  the same, 64 tokens' signatures in turn", counted: false) {
            precondition(others[next].verifySignature())
            next = (next + 1) % others.count
        }
        try await stage("ECDH + KDF (ephemeral key parsed)") { try probe.agreeAndDerive() }
        try await stage("AES-256-GCM open") { try probe.openData() }
        try await stage("payment data JSON decode + shape") { try probe.decodePaymentData() }
        var store = InMemoryReplayStore()
        var recorded = 0
        try await stage("replay store: first use recorded") {
            // A fresh store every 512 entries, as the full benchmark does.
            if recorded == 512 {
                store = InMemoryReplayStore()
                recorded = 0
            }
            recorded += 1
            try await probe.recordReplay(store: store, now: time.addingTimeInterval(Double(recorded)))
        }
        let result = await verifier.verify(tokens[1], context: context)
        await stage("report JSON (not part of a verification)", counted: false) { _ = result.json }
        if only == nil {
            let rest = fullMicros - stageMicros
            print(
                "  rest: check runner, messages, details, summary: \(String(format: "%.1f", rest)) µs, \(String(format: "%.1f", 100 * rest / fullMicros)) % of a full verification"
            )
        }
    }
}
