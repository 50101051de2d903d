import Foundation

/// Runs `body` repeatedly for about `seconds` on the current task and returns operations per second.
func measure(_ label: String, seconds: Double, _ body: () async throws -> Void) async rethrows -> Double {
    // Warm up (caches, lazy initialisation).
    for _ in 0..<20 { try await body() }
    let clock = ContinuousClock()
    var count = 0
    let start = clock.now
    let budget = Duration.milliseconds(Int64(seconds * 1000))
    while clock.now - start < budget {
        for _ in 0..<10 { try await body() }
        count += 10
    }
    let elapsed = clock.now - start
    let perSecond = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    print("  \(label.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", perSecond)) /s  (\(String(format: "%.1f", 1e6 / perSecond)) µs each)")
    return perSecond
}

func ratioLine(_ full: Double, _ floor: Double, target: Double) {
    print("  ratio full / crypto floor: \(String(format: "%.2f", full / floor)) (target ≥ \(target))")
}
