import Foundation
import ReplayStoreSQLite
import VerificationCore

/// The embedded SQLite store alone (`wallet-verifier-bench store`): 16 concurrent callers recording
/// distinct transaction ids and consuming issued nonces, as the service does under load. Prints
/// operations per second and the process's CPU time per operation.
enum StoreBenchmark {
    static func run(seconds: Double) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-verifier-store-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        let now = Date()
        let count = max(2_000, Int(seconds * 4_000))
        for index in 0..<count { try await store.issueNonce("nonce-\(index)", payload: [1, 2, 3], expiresAt: now.addingTimeInterval(600)) }
        print("store: embedded SQLite, 16 concurrent callers, \(count) operations of each kind")
        let record: @Sendable (Int) async throws -> Void = { index in
            _ = try await store.recordFirstUse(namespace: "bench", key: "tx-\(index)", expiresAt: now.addingTimeInterval(600), now: now)
        }
        let consume: @Sendable (Int) async throws -> Void = { index in
            _ = try await store.consumeNonce("nonce-\(index)", now: now)
        }
        for (name, operation) in [("recordFirstUse (distinct keys)", record), ("consumeNonce (issued nonces)", consume)] {
            let cpuStart = processCPUSeconds()
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        var index = worker
                        while index < count {
                            try await operation(index)
                            index += 16
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = ContinuousClock.now - start
            let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let cpu = processCPUSeconds() - cpuStart
            print(
                "  \(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", Double(count) / wall)) /s  (CPU \(String(format: "%.1f", cpu / Double(count) * 1e6)) µs each)"
            )
        }
        await store.close()
    }
}
