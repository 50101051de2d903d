import Foundation

/// The costs of the stages of one verification as shares of the full verification (the `*-stages`
/// commands): the full verification first, then each stage with its rate, µs and share, then the
/// crypto floor's share and what no stage accounts for.
///
/// Every figure is the best of three rounds of CPU time on the current task (a shared machine
/// preempts; CPU time does not count the time it ran something else). Stages may overlap (a
/// decode inside a larger decode); those marked `part` (▸) must not: they are the pieces a
/// verification is made of, and `full − parts` is what is left unaccounted (the checks' own
/// logic, the report, copies between stages). A stage a change removes from the
/// verification's path (a cache, text built only on demand) should stop being a part, or the
/// remainder goes negative.
struct StageTable {
    /// The comma-separated label fragments of the environment variable the table was made with: only
    /// stages whose label contains one of them are measured (nil: every stage).
    let filter: [String]?
    let seconds: Double
    private(set) var fullMicroseconds: Double?
    private var floorMicroseconds: Double?
    private var partsMicroseconds = 0.0
    private var partCount = 0

    static let labelWidth = 62

    /// A table measuring each stage for about `seconds` of CPU time; the environment variable `filter`
    /// (say `MDOC_STAGE=Certificate,full`) restricts it to some stages, for profiling one of them.
    init(filter variable: String, seconds: Double) {
        self.filter = ProcessInfo.processInfo.environment[variable].map { $0.split(separator: ",").map(String.init) }
        self.seconds = seconds
    }

    func includes(_ label: String) -> Bool {
        guard let filter else { return true }
        return filter.contains { label.contains($0) }
    }

    /// Measures the full verification, the denominator of every share.
    mutating func full(_ label: String, _ body: () async throws -> Void) async rethrows {
        guard let microseconds = try await time(label, body) else { return }
        fullMicroseconds = microseconds
        print(line(label, microseconds))
    }

    /// Measures one stage; with `part`, it counts towards the accounted time. The µs, nil when filtered out.
    @discardableResult
    mutating func stage(_ label: String, part: Bool = false, _ body: () async throws -> Void) async rethrows -> Double? {
        guard let microseconds = try await time(label, body) else { return nil }
        if part {
            partsMicroseconds += microseconds
            partCount += 1
        }
        print(line(label, microseconds, marker: part ? "▸" : " "))
        return microseconds
    }

    /// Measures `first` and `second` apart, then one after the other in every iteration (as a
    /// verification runs them), and prints what the pair costs together beyond the sum of the two
    /// apart: the cost of each evicting the other's code and data from the caches, which no stage
    /// measured alone shows. Not a part (its pieces are measured by the parts already).
    mutating func together(
        _ firstLabel: String, _ first: () async throws -> Void, then secondLabel: String, _ second: () async throws -> Void
    ) async rethrows {
        let label = "\(firstLabel), then \(secondLabel)"
        guard includes(label) else { return }
        guard let apart1 = try await time(label, first), let apart2 = try await time(label, second) else { return }
        guard
            let both = try await time(
                label,
                {
                    try await first()
                    try await second()
                })
        else { return }
        print(line("  \(firstLabel), alone", apart1))
        print(line("  \(secondLabel), alone", apart2))
        print(line("  the two, one after the other", both))
        print(line("  together − apart (each evicting the other from the caches)", both - apart1 - apart2, rate: false))
    }

    /// Measures the crypto floor (the signatures and decryption no verification can skip); with
    /// `part`, it is one of the pieces too (when no other part holds that cryptography).
    mutating func floor(_ label: String, part: Bool = false, _ body: () async throws -> Void) async rethrows {
        guard let microseconds = try await time(label, body) else { return }
        floorMicroseconds = microseconds
        if part {
            partsMicroseconds += microseconds
            partCount += 1
        }
        print(line(label, microseconds, marker: part ? "▸" : " "))
    }

    /// The floor's share, the parts' share and what is left; nothing without a full verification.
    func summary() {
        guard let full = fullMicroseconds else {
            print("  (no full verification measured, so no shares: add \"full\" to the filter)")
            return
        }
        print("  of a full verification:")
        if let floor = floorMicroseconds {
            print(line("the crypto floor", floor, rate: false))
            print(line("everything outside the crypto floor", full - floor, rate: false))
        }
        if partCount > 0 {
            print(line("the \(partCount) stage\(partCount == 1 ? "" : "s") marked ▸ together", partsMicroseconds, rate: false))
            print(line("unaccounted: full − the stages marked ▸", full - partsMicroseconds, rate: false))
        }
        if filter != nil { print("  (filtered: only the stages measured are in these sums)") }
    }

    /// `STAGE_ITERATIONS`: run each measured stage exactly this many times instead of for a time.
    static let fixedIterations = ProcessInfo.processInfo.environment["STAGE_ITERATIONS"].flatMap { Int($0) }

    /// µs per operation, best of three CPU-time rounds after a warm-up (or `STAGE_ITERATIONS` runs);
    /// nil when filtered out.
    private func time(_ label: String, _ body: () async throws -> Void) async rethrows -> Double? {
        guard includes(label) else { return nil }
        if let iterations = Self.fixedIterations {
            // For counting events per operation (perf stat on retains, allocations): exactly this many
            // runs and no warm-up, so two runs with different counts give the per-operation figure.
            let start = processCPUSeconds()
            for _ in 0..<iterations { try await body() }
            return (processCPUSeconds() - start) * 1e6 / Double(max(iterations, 1))
        }
        for _ in 0..<20 { try await body() }
        var best = Double.infinity
        for _ in 0..<3 {
            var count = 0
            let start = processCPUSeconds()
            while processCPUSeconds() - start < max(0.02, seconds / 3) {
                for _ in 0..<10 { try await body() }
                count += 10
            }
            best = min(best, (processCPUSeconds() - start) * 1e6 / Double(count))
        }
        return best
    }

    /// `label  rate /s  µs  share`, aligned; `marker` (▸) flags a part.
    private func line(_ label: String, _ microseconds: Double, rate: Bool = true, marker: Character = " ") -> String {
        let padded = label.padding(toLength: Self.labelWidth, withPad: " ", startingAt: 0)
        let perSecond = rate && microseconds > 0 ? String(format: "%9.0f /s", 1e6 / microseconds) : String(repeating: " ", count: 12)
        let share = fullMicroseconds.map { String(format: "%6.1f %%", 100 * microseconds / $0) } ?? ""
        return "\(marker) \(padded) \(perSecond) \(String(format: "%8.1f µs", microseconds))  \(share)"
    }
}
