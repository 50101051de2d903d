/// A small deterministic random number generator (a 64-bit linear congruential generator), so that
/// randomized tests reproduce: the same seed gives the same sequence on every run and machine.
public struct SeededGenerator: RandomNumberGenerator {
    /// The current state; the next value is derived from it.
    public var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next value of the sequence.
    public mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
}
