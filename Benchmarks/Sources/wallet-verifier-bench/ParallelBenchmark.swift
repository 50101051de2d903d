import ApplePayVerifier
import Foundation
import MdocVerifier
import VerificationCore
import WalletVerifierTestSupport

/// The library on one task, then on as many tasks as the machine has cores
/// (`wallet-verifier-bench parallel`): throughput and CPU time per verification each way. It shows
/// what running in parallel costs by itself (shared objects, the allocator, the machine), apart
/// from any HTTP server. It measures; it never fails on time.
enum ParallelBenchmark {
    static func run(seconds: Double) async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("parallel: the library on 1 task and on \(cores) tasks (\(cores) cores)")

        // Apple Pay EC_v1: each task has its own tokens and replay store; ring, anchor and chain cache are shared.
        let pki = ApplePayFixturePKI.standard
        let anchor = try pki.trustAnchor()
        let merchant = try ApplePayFixtureMerchant.ec()
        let ring = try MerchantKeyRing([merchant.merchantKey()])
        let cache = ApplePayChainCache()
        let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
        let context = VerificationContext(time: signingTime.addingTimeInterval(30))
        let tokenSets = try (0..<cores).map { _ in
            try (0..<512).map { _ in try ApplePayTokenBuilder(pki: pki, merchant: merchant, signingTime: signingTime).build().json() }
        }
        try await compare("Apple Pay EC_v1 decrypt", seconds: seconds, tasks: cores) { task in
            var cycle = try FirstUseTokens(tokenSets[task]) {
                try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), trustAnchor: anchor, chainCache: cache)
            }
            return {
                let result = try await cycle.verifyNext(context: context)
                precondition(result.verdict == .accepted)
            }
        }

        // mdoc: one verifier (shared trust store and chain cache), the same response on every task.
        let scenario = try MdocBenchmark.scenario(transcript: MdocBenchmark.transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [scenario.pki.iaca]), policy: .iso18013Strict)
        let time = scenario.fixture.validFrom.addingTimeInterval(3600)
        try await compare("mdoc verification", seconds: seconds, tasks: cores) { _ in
            return {
                let result = await verifier.verify(deviceResponse: scenario.bytes, transcript: MdocBenchmark.transcript, context: .at(time))
                precondition(result.report.verdict == .accepted)
            }
        }
    }

    /// Runs `make(task)()` in a loop on 1 task, then on `tasks` tasks at once, and prints the rate
    /// and the process CPU time per operation of each.
    static func compare(_ label: String, seconds: Double, tasks: Int, make: @escaping @Sendable (Int) throws -> () async throws -> Void) async throws
    {
        for width in [1, tasks] {
            let bodies = try (0..<width).map { try make($0) }
            for body in bodies { for _ in 0..<20 { try await body() } }
            let clock = ContinuousClock()
            let start = clock.now
            let cpuStart = processCPUSeconds()
            let deadline = start + .milliseconds(Int64(seconds * 1000))
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for body in bodies {
                    let run = UncheckedBox(body)
                    group.addTask {
                        var count = 0
                        while clock.now < deadline {
                            for _ in 0..<10 { try await run.value() }
                            count += 10
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
            let elapsed = clock.now - start
            let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let cpu = processCPUSeconds() - cpuStart
            let name = "\(label), \(width) task(s)"
            print(
                "  \(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", Double(counts) / wall)) /s  (\(String(format: "%.1f", cpu * 1e6 / Double(counts))) µs CPU each)"
            )
        }
    }
}

/// Hands a non-Sendable closure to one child task; each closure is used by exactly one task.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
