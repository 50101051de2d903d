import CDispatch
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
    print(
        "  \(label.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", perSecond)) /s  (\(String(format: "%.1f", 1e6 / perSecond)) µs each)"
    )
    return perSecond
}

/// Measures `full` and `floor` in alternating short rounds of CPU time, so that both see the same
/// machine (on a shared 2-core VM a single run of either can be off by a third), then prints each
/// one's best rate, the ratio of the bests and the median of the per-round ratios.
func measurePair(
    full fullLabel: String, floor floorLabel: String, seconds: Double, rounds: Int = 6, target: Double,
    full: () async throws -> Void, floor: () async throws -> Void
) async rethrows {
    func rate(_ budget: Double, _ body: () async throws -> Void) async rethrows -> Double {
        var count = 0
        let start = processCPUSeconds()
        while processCPUSeconds() - start < budget {
            for _ in 0..<10 { try await body() }
            count += 10
        }
        return Double(count) / (processCPUSeconds() - start)
    }
    for _ in 0..<20 {
        try await full()
        try await floor()
    }
    let budget = max(0.1, seconds / Double(rounds))
    var fullRates: [Double] = []
    var floorRates: [Double] = []
    for _ in 0..<rounds {
        fullRates.append(try await rate(budget, full))
        floorRates.append(try await rate(budget, floor))
    }
    for (label, rates) in [(fullLabel, fullRates), (floorLabel, floorRates)] {
        let best = rates.max() ?? 0
        print(
            "  \(label.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", best)) /s  (\(String(format: "%.1f", 1e6 / best)) µs each, best of \(rounds) CPU-time rounds)"
        )
    }
    let ratios = zip(fullRates, floorRates).map { $0 / $1 }.sorted()
    let median = ratios.isEmpty ? 0 : (ratios[(ratios.count - 1) / 2] + ratios[ratios.count / 2]) / 2
    print(
        "  ratio full / crypto floor: \(String(format: "%.2f", (fullRates.max() ?? 0) / (floorRates.max() ?? 1))) best to best, \(String(format: "%.2f", median)) median of rounds (target ≥ \(target))"
    )
}

/// CPU seconds (user and system) of the child processes waited for so far (wrk, for the load runs).
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// CPU time (user and system, all threads) this process has used so far, in seconds.
func processCPUSeconds() -> Double {
    // getrusage, as for the children above: `timespec` of clock_gettime resolves to CoreFoundation's
    // declaration in release builds, which MemberImportVisibility refuses.
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
